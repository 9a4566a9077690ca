// Package openapi turns an OpenAPI 3.0 or 3.1 description into a twin
// folder of format 1 (see package format), plus import-report.json, which
// says what was inferred, how sure the importer is, and what it left
// unresolved.
//
// The description is parsed and its $refs resolved by kin-openapi. One
// pipeline (Import) then makes the twin; what it knows of a provider is a
// Dialect and an Overlay. The dialect is the one the overlay names, else
// the first of Options.Dialects that detects the description's style,
// else Rest. Its hooks infer the stateful resources (claiming the
// operations they serve), the error shapes and the routes of every other
// operation, whose template answers are their response shapes: an
// example first, else a deterministic schema sampler (first enum value,
// null for nullable, empty containers, 0, ""; never random fakers). The
// pipeline writes twin.toml with format.WriteManifest, naming the
// dialect, and loads and compiles the result as serve would.
//
// The output is a pure function of the inputs: everything is sorted, no
// clock is read, no map is iterated unsorted.
package openapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
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
	// Fixtures is a fixtures file of example objects, read by the
	// dialects that take one. Optional.
	Fixtures []byte
	// Overlay is the text of an overlay TOML file (see Overlay). Optional.
	Overlay []byte
	// Modified is the description file's modification time: the twin's
	// recorded_at when neither the overlay nor the description pins a
	// date (see recordedAt). Optional; a twin of unknown age without.
	Modified time.Time
	// Dialects are the dialects the import may take, in the order they
	// are asked to detect the description; Rest is always the last.
	Dialects []Dialect
}

// ErrSwagger2 is returned, wrapped with the reason, for a Swagger 2.0
// document that cannot be imported once converted to OpenAPI 3 (the
// import converts one with kin-openapi's openapi2conv).
var ErrSwagger2 = errors.New("this is a Swagger 2.0 document, which wraith converts to OpenAPI 3 before importing, and the conversion cannot be imported: fix the document, or convert it yourself (for example with swagger2openapi) and import the result")

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

// imported runs the pipeline: the overlay, the dialect, its resources,
// errors and routes, then twin.toml and the report.
func imported(sp *sampler, doc *openapi3.T, opts Options) (*Result, error) {
	if sp.stopped() {
		return nil, sp.err
	}
	ov, err := parseOverlay(opts.Overlay)
	if err != nil {
		return nil, err
	}
	d, err := choose(doc, ov, opts.Dialects)
	if err != nil {
		return nil, err
	}
	if dd, ok := d.(OverlayDefaulter); ok && len(opts.Overlay) == 0 {
		b, err := dd.DefaultOverlay()
		if err != nil {
			return nil, err
		}
		if ov, err = parseOverlay(b); err != nil {
			return nil, fmt.Errorf("the %s dialect's own overlay: %w", d.Name(), err)
		}
	}
	im := newImporter(sp, doc, ov, opts)
	hooks, err := d.Begin(im)
	if err != nil {
		return nil, err
	}
	resources, err := hooks.Resources()
	if err != nil {
		return nil, err
	}
	if sp.err != nil {
		return nil, sp.err
	}
	im.declared(resources, d.Name())
	m := format.Manifest{
		Format:      format.Version,
		Name:        firstOf(opts.Name, ov.Twin.Name, "imported"),
		Provider:    firstOf(opts.Provider, ov.Twin.Provider, slug(doc.Info.Title), "api"),
		Dialect:     d.Name(),
		Upstream:    firstOf(ov.Twin.Upstream, server(doc)),
		Description: firstOf(ov.Twin.Description, strings.TrimSpace(fmt.Sprintf("imported from %s %s", doc.Info.Title, doc.Info.Version))),
		Errors:      withExtraErrors(hooks.Errors(), ov.Errors),
		Resources:   resources,
	}
	m.PII.Verbatim = im.verbatim()
	if !format.ValidName(m.Name) {
		return nil, fmt.Errorf("twin name %q must match %s: pass --name", m.Name, format.NamePattern)
	}
	if err := stamp(&m, im.report, ov.Source.Date, doc.Info, opts.Modified); err != nil {
		return nil, err
	}
	var unclaimed []Operation
	for _, o := range im.ops {
		if im.ClaimedBy(o.Method, o.Path) == "" {
			unclaimed = append(unclaimed, o)
		}
	}
	m.Routes = hooks.Routes(unclaimed)
	if sp.stopped() {
		return nil, sp.err
	}

	requests := im.requests(hooks) // before the report is counted and written: it reports what it could not add
	im.count(&m, len(unclaimed))
	var buf bytes.Buffer
	if err := format.WriteManifest(&buf, &m); err != nil {
		return nil, err
	}
	files := map[string][]byte{"twin.toml": buf.Bytes(), "import-report.json": im.report.encode()}
	if f := requests; f != nil {
		b, err := f.Marshal()
		if err != nil {
			return nil, err
		}
		files[format.RequestsFile] = b
	}
	for p, b := range im.files {
		files[p] = b
	}
	return &Result{Files: files, Report: im.report}, nil
}

// withExtraErrors is e with the overlay's extra [errors.*] shapes, which
// its fail rules name (ParseOverlay refuses the names of format.ErrorKeys).
func withExtraErrors(e format.Errors, extra map[string]format.Answer) format.Errors {
	for name, a := range extra {
		if e.Extra == nil {
			e.Extra = map[string]*format.Answer{}
		}
		e.Extra[name] = &a
	}
	return e
}

func server(doc *openapi3.T) string {
	if len(doc.Servers) > 0 && doc.Servers[0] != nil {
		return doc.Servers[0].URL
	}
	return ""
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a provider name from a title: "Pet Store API" -> "pet-store-api".
func slug(s string) string {
	return strings.Trim(nonName.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
