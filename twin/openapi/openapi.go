// Package openapi turns an OpenAPI 3.0 or 3.1 description into a twin
// folder of format 1 (see package format), plus import-report.json, which
// says what was inferred, how sure the importer is, and what it left
// unresolved.
//
// The description is parsed and its $refs resolved by kin-openapi. From it
// the importer infers:
//
//   - resources: a top-level collection path with list (GET) and create
//     (POST) and an item path collection/{param} with retrieve (GET), whose
//     answer is an object with an id and a one-value "object" enum (Stripe's
//     x-resourceId marks the same schemas); polymorphic answers (anyOf)
//     take the branch whose object enum the collection's list holds;
//   - deletes: a tombstone when the answer is a deleted_* schema
//     ({"deleted": true}), none when the spec has no DELETE;
//   - actions: POST {item}/{verb} answering the resource;
//   - id prefixes: a majority vote over the ids of the fixtures and the
//     spec's examples; placeholders (obj_123) and natural keys do not vote;
//   - skeletons: a fixture or example first, else a deterministic schema
//     sampler (first enum value, null for nullable, empty containers, 0, "");
//   - error shapes: sampled from the most common error response schema.
//
// Every other operation is a declared route whose template answer is its
// response shape. An overlay (overlays/*.toml) adds what a description
// does not say: state machines and create rules.
//
// The output is a pure function of the inputs: everything is sorted, no
// clock is read, no map is iterated unsorted.
package openapi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing/fstest"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
)

// Options configure an import.
type Options struct {
	// Name is the twin's name; default "imported".
	Name string
	// Provider is the twin's provider; default the spec's info.title,
	// lower-cased to a name.
	Provider string
	// Fixtures is a stripe-mock style fixtures file,
	// {"resources": {"<resource id>": {...object...}}}. Optional.
	Fixtures []byte
	// Overlay is the text of an overlay TOML file (see Overlay). Optional.
	Overlay []byte
	// Modified is the description file's modification time: the twin's
	// recorded_at when neither the overlay nor the description pins a
	// date (see recordedAt). Optional; a twin of unknown age without.
	Modified time.Time
}

// ErrSwagger2 is returned for a Swagger 2.0 document.
var ErrSwagger2 = errors.New("this is a Swagger 2.0 document; wraith imports OpenAPI 3.0 and 3.1: convert it first (for example with swagger2openapi)")

// Result is an imported twin: its files by path, the report, and the
// twin as format.Load reads those files.
type Result struct {
	Files  map[string][]byte
	Report *Report
	Twin   *format.Twin
}

// FS returns the twin's files as a file system, for serving without
// writing anything.
func (r *Result) FS() fs.FS {
	m := fstest.MapFS{}
	for p, b := range r.Files {
		m[p] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	return m
}

// Paths returns the files' paths, sorted.
func (r *Result) Paths() []string {
	paths := make([]string, 0, len(r.Files))
	for p := range r.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// WriteDir writes the twin into dir, creating it. Files of an earlier
// import that this one does not produce are left alone, except the
// fixtures and twin.toml it replaces.
//
// No reader ever sees half a twin: a new dir is written beside it under
// a temporary name and renamed into place, and into an existing one each
// file is written under a temporary name and renamed over the old. A
// failure (or the process stopped) leaves at most a temporary file or
// folder starting with ".wraith-import-", never a twin.toml of one import
// beside the fixtures of another's half.
func (r *Result) WriteDir(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return r.writeNew(dir)
	}
	for _, p := range r.Paths() {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(p)), r.Files[p]); err != nil {
			return fmt.Errorf("write twin: %w", err)
		}
	}
	return nil
}

// writeNew writes the twin into a temporary folder beside dir and renames
// it to dir.
func (r *Result) writeNew(dir string) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("write twin: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".wraith-import-")
	if err != nil {
		return fmt.Errorf("write twin: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; a leftover on failure
	for _, p := range r.Paths() {
		full := filepath.Join(tmp, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("write twin: %w", err)
		}
		if err := os.WriteFile(full, r.Files[p], 0o644); err != nil {
			return fmt.Errorf("write twin: %w", err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("write twin: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("write twin: %w", err)
	}
	return nil
}

// writeFile replaces the file at full with b by a rename, so it is the old
// file or the new one, never part of either.
func writeFile(full string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(full), ".wraith-import-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone after the rename
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), full)
}

// Import imports an OpenAPI description (JSON or YAML).
func Import(spec []byte, opts Options) (*Result, error) {
	return ImportContext(context.Background(), spec, opts)
}

// ImportContext is Import, stopped when ctx ends: the import looks at ctx
// between operations and every few thousand sampled nodes, and returns
// ctx's error (errors.Is(err, context.Canceled)). Parsing the description
// is not interrupted; it is linear in the description's size.
func ImportContext(ctx context.Context, spec []byte, opts Options) (*Result, error) {
	doc, err := load(spec)
	if err != nil {
		return nil, err
	}
	res, err := imported(newSampler(ctx), doc, opts)
	if err != nil {
		return nil, err
	}
	// The twin is loaded and its route table compiled as serve does both
	// (format.Load, then Twin.Routes, the table the engine compiles), so
	// an import either gives a twin serve serves or fails here, before
	// anything is written.
	if res.Twin, err = format.Load(res.FS(), "the imported twin"); err != nil {
		return nil, fmt.Errorf("the imported twin does not load, so it could not be served (a bug in the importer; please report it): %w", err)
	}
	if _, err := res.Twin.Routes(); err != nil {
		return nil, fmt.Errorf("the imported twin's routes do not compile, so it could not be served (a bug in the importer; please report it): %w", err)
	}
	return res, nil
}

func imported(sp *sampler, doc *openapi3.T, opts Options) (*Result, error) {
	if sp.stopped() {
		return nil, sp.err
	}
	if githubStyle(doc) {
		return importGitHub(sp, doc, opts)
	}
	ov, err := parseOverlay(opts.Overlay)
	if err != nil {
		return nil, err
	}
	fx, err := parseFixtures(opts.Fixtures)
	if err != nil {
		return nil, err
	}
	im := newImporter(sp, doc, fx, ov, opts)
	im.infer()
	if sp.err != nil {
		return nil, sp.err
	}
	return im.emit()
}
