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
}

// ErrSwagger2 is returned for a Swagger 2.0 document.
var ErrSwagger2 = errors.New("this is a Swagger 2.0 document; wraith imports OpenAPI 3.0 and 3.1: convert it first (for example with swagger2openapi)")

// Result is an imported twin: its files by path, and the report.
type Result struct {
	Files  map[string][]byte
	Report *Report
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
func (r *Result) WriteDir(dir string) error {
	for _, p := range r.Paths() {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("write twin: %w", err)
		}
		if err := os.WriteFile(full, r.Files[p], 0o644); err != nil {
			return fmt.Errorf("write twin: %w", err)
		}
	}
	return nil
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
	sp := newSampler(ctx)
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
