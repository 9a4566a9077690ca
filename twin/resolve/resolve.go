// Package resolve finds a twin by the name or path a user gives.
//
// A TWIN argument resolves to the first of:
//
//  1. a path to a twin folder (one holding twin.toml), to a packed .twin file,
//     or to an OpenAPI 3.0/3.1 document (.json, .yaml, .yml), imported in
//     memory (package openapi);
//  2. ./twins/NAME, a folder under the working directory;
//  3. ./NAME.twin, a packed twin in the working directory;
//  4. NAME in each folder of WRAITH_TWINS_PATH (a colon-separated list), as a
//     folder NAME or a file NAME.twin;
//  5. the twins embedded in the binary.
//
// A local twin found by name (2 to 4) that has the name of an embedded twin
// shadows it: Source.Shadows says so, and embedded:NAME always picks the
// embedded twin.
package resolve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/pack"
)

// Source is a resolved twin, not yet loaded.
type Source struct {
	Name  string // what it was asked for as, or its folder name when listed
	Where string // a path, or "embedded"
	FS    fs.FS  // a packed twin is read into memory when resolved
	// Shadows is "embedded" when a twin found by name hides the embedded
	// twin of the same name.
	Shadows string
	// err is why a listed packed twin cannot be read; Load returns it.
	err error
}

// EmbeddedPrefix before a name picks the embedded twin of that name, even
// when a local one shadows it.
const EmbeddedPrefix = "embedded:"

// ShadowWarning says, for a source that shadows an embedded twin, which twin
// was picked and how to pick the embedded one; it is empty otherwise.
func (s Source) ShadowWarning() string {
	if s.Shadows == "" {
		return ""
	}
	return fmt.Sprintf("twin %q resolves to %s, which shadows the embedded twin %q: "+
		"to use the embedded one, write %s%s; to keep the local one without this warning, give its path (%s)",
		s.Name, s.Where, s.Name, EmbeddedPrefix, s.Name, s.Where)
}

// Load loads and validates the twin.
func (s Source) Load() (*format.Twin, error) {
	if s.err != nil {
		return nil, s.err
	}
	where := s.Where
	if where == "embedded" {
		where = "embedded twin " + s.Name
	}
	return format.Load(s.FS, where)
}

// Resolver resolves twin names. Its fields are its whole environment.
type Resolver struct {
	Dir        string   // working directory
	SearchPath []string // folders from WRAITH_TWINS_PATH
	Embedded   fs.FS    // one folder per embedded twin
}

// New returns a resolver for the working directory dir and the value of
// WRAITH_TWINS_PATH.
func New(dir, twinsPath string, embedded fs.FS) *Resolver {
	var search []string
	for _, p := range strings.Split(twinsPath, ":") {
		if p != "" {
			search = append(search, p)
		}
	}
	return &Resolver{Dir: dir, SearchPath: search, Embedded: embedded}
}

// ErrNotFound is wrapped by Resolve when nothing matches.
var ErrNotFound = errors.New("twin not found")

// Resolve finds the twin named by arg.
func (r *Resolver) Resolve(arg string) (Source, error) {
	if arg == "" {
		return Source{}, errors.New("twin name is empty")
	}
	if looksLikePath(arg) {
		if src, ok, err := r.fromPath(arg, r.abs(arg)); ok || err != nil {
			return src, err
		}
		return Source{}, fmt.Errorf("%w: %s is neither a twin folder (with twin.toml) nor a .twin file", ErrNotFound, arg)
	}
	if name, ok := strings.CutPrefix(arg, EmbeddedPrefix); ok {
		if src, ok, err := r.embedded(name); ok || err != nil {
			return src, err
		}
		return Source{}, fmt.Errorf("%w: no embedded twin named %q; embedded twins: %s", ErrNotFound, name, strings.Join(r.embeddedNames(), ", "))
	}
	if !format.ValidName(arg) {
		return Source{}, fmt.Errorf("%w: %q is not a twin name (names match %s) nor a path", ErrNotFound, arg, format.NamePattern)
	}
	if src, ok, err := r.local(arg); ok || err != nil {
		if err == nil && r.Embedded != nil {
			if _, err := fs.Stat(r.Embedded, arg+"/twin.toml"); err == nil {
				src.Shadows = "embedded"
			}
		}
		return src, err
	}
	if src, ok, err := r.embedded(arg); ok || err != nil {
		return src, err
	}
	var names []string
	for _, s := range r.List() {
		names = append(names, s.Name)
	}
	return Source{}, fmt.Errorf("%w: no twin named %q; twins that resolve here: %s (see `wraith twins`)", ErrNotFound, arg, strings.Join(names, ", "))
}

// local finds a twin by name in the working directory and on the search
// path (rules 2 to 4).
func (r *Resolver) local(arg string) (Source, bool, error) {
	if src, ok, err := r.fromPath(arg, filepath.Join(r.Dir, "twins", arg)); ok || err != nil {
		return src, ok, err
	}
	if src, ok, err := r.fromPath(arg, filepath.Join(r.Dir, arg+".twin")); ok || err != nil {
		return src, ok, err
	}
	for _, dir := range r.SearchPath {
		for _, cand := range []string{filepath.Join(dir, arg), filepath.Join(dir, arg+".twin")} {
			if src, ok, err := r.fromPath(arg, r.abs(cand)); ok || err != nil {
				return src, ok, err
			}
		}
	}
	return Source{}, false, nil
}

// embedded finds the embedded twin named name (rule 5).
func (r *Resolver) embedded(name string) (Source, bool, error) {
	if r.Embedded == nil || !format.ValidName(name) {
		return Source{}, false, nil
	}
	if _, err := fs.Stat(r.Embedded, name+"/twin.toml"); err != nil {
		return Source{}, false, nil
	}
	sub, err := fs.Sub(r.Embedded, name)
	if err != nil {
		return Source{}, true, err
	}
	return Source{Name: name, Where: "embedded", FS: sub}, true, nil
}

func (r *Resolver) embeddedNames() []string {
	var names []string
	if r.Embedded == nil {
		return names
	}
	entries, _ := fs.ReadDir(r.Embedded, ".")
	for _, e := range entries {
		if _, ok, _ := r.embedded(e.Name()); ok {
			names = append(names, e.Name())
		}
	}
	return names
}

func looksLikePath(arg string) bool {
	return strings.ContainsRune(arg, filepath.Separator) || strings.HasSuffix(arg, ".twin") || isSpecFile(arg) || arg == "." || arg == ".."
}

func (r *Resolver) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.Dir, p)
}

// fromPath reports whether p is a twin folder or packed twin.
func (r *Resolver) fromPath(name, p string) (Source, bool, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return Source{}, false, nil
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(p, "twin.toml")); err != nil {
			return Source{}, false, nil
		}
		return Source{Name: name, Where: p, FS: os.DirFS(p)}, true, nil
	}
	if strings.HasSuffix(p, ".twin") {
		fsys, err := pack.Open(p)
		if err != nil {
			return Source{}, true, err
		}
		return Source{Name: name, Where: p, FS: fsys}, true, nil
	}
	if isSpecFile(p) {
		return fromSpec(p)
	}
	return Source{}, false, nil
}

// List returns every twin that resolves by name, first hit per name, sorted
// by name.
func (r *Resolver) List() []Source {
	seen := map[string]bool{}
	var out []Source
	add := func(name, where string, fsys fs.FS) {
		if !seen[name] {
			seen[name] = true
			out = append(out, Source{Name: name, Where: where, FS: fsys})
		}
	}
	// Folders come before packed twins of the same name, as in Resolve.
	scan := func(dir string, folders, packed bool) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if folders && e.IsDir() && format.ValidName(e.Name()) {
				if _, err := os.Stat(filepath.Join(p, "twin.toml")); err == nil {
					add(e.Name(), p, os.DirFS(p))
				}
			}
		}
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), ".twin")
			if !packed || !ok || e.IsDir() || !format.ValidName(name) || seen[name] {
				continue
			}
			p := filepath.Join(dir, e.Name())
			fsys, err := pack.Open(p)
			if err != nil {
				seen[name] = true
				out = append(out, Source{Name: name, Where: p, err: err})
				continue
			}
			add(name, p, fsys)
		}
	}
	scan(filepath.Join(r.Dir, "twins"), true, false)
	scan(r.Dir, false, true)
	for _, dir := range r.SearchPath {
		scan(r.abs(dir), true, true)
	}
	if r.Embedded != nil {
		entries, _ := fs.ReadDir(r.Embedded, ".")
		for _, e := range entries {
			if e.IsDir() {
				if sub, err := fs.Sub(r.Embedded, e.Name()); err == nil {
					if _, err := fs.Stat(sub, "twin.toml"); err == nil {
						if seen[e.Name()] {
							for i := range out {
								if out[i].Name == e.Name() {
									out[i].Shadows = "embedded"
								}
							}
						}
						add(e.Name(), "embedded", sub)
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
