package resolve

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/pack"
)

func writeTwin(tb testing.TB, dir, name string) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "twin.toml"), []byte("format = 1\nname = \""+name+"\"\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func TestResolveOrder(t *testing.T) {
	work, search := t.TempDir(), t.TempDir()
	embedded := fstest.MapFS{
		"shared/twin.toml":   {Data: []byte("format = 1\nname = \"shared\"\n")},
		"embonly/twin.toml":  {Data: []byte("format = 1\nname = \"embonly\"\n")},
		"notatwin/README.md": {Data: []byte("x")},
	}
	writeTwin(t, filepath.Join(work, "twins", "shared"), "shared")
	writeTwin(t, filepath.Join(search, "shared"), "shared")
	writeTwin(t, filepath.Join(search, "pathonly"), "pathonly")
	writeTwin(t, filepath.Join(work, "some", "folder"), "folder")
	r := New(work, "/nonexistent:"+search, embedded)

	tests := []struct{ arg, where string }{
		{"shared", filepath.Join(work, "twins", "shared")},
		{"pathonly", filepath.Join(search, "pathonly")},
		{"embonly", "embedded"},
		{"some/folder", filepath.Join(work, "some", "folder")},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			src, err := r.Resolve(tt.arg)
			if err != nil {
				t.Fatal(err)
			}
			if src.Where != tt.where {
				t.Errorf("want %s, have %s", tt.where, src.Where)
			}
		})
	}
	var names []string
	for _, s := range r.List() {
		names = append(names, s.Name)
	}
	if have := strings.Join(names, ","); have != "embonly,pathonly,shared" {
		t.Errorf("List: want embonly,pathonly,shared, have %s", have)
	}
}

func TestResolveRefuses(t *testing.T) {
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "packed.twin"), []byte("x"), 0o644)
	r := New(work, "", fstest.MapFS{"checkout/twin.toml": {Data: []byte("x")}})
	tests := []struct {
		arg      string
		notFound bool
		want     string
	}{
		{"nope", true, "twins that resolve here: checkout"},
		{"../../etc", true, "neither a twin folder"},
		{"Bad Name", true, "is not a twin name"},
		{"packed.twin", false, "packed.twin: not a packed twin"},
		{"", false, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			_, err := r.Resolve(tt.arg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want an error mentioning %q, have %v", tt.want, err)
			}
			if have := errors.Is(err, ErrNotFound); have != tt.notFound {
				t.Errorf("errors.Is(ErrNotFound): want %v, have %v", tt.notFound, have)
			}
		})
	}
}

// packTwin packs a minimal twin named name into the file path.
func packTwin(tb testing.TB, path, name string) string {
	tb.Helper()
	src := fstest.MapFS{"twin.toml": {Data: []byte("format = 1\nname = \"" + name + "\"\n")}}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	m, err := pack.WriteFile(path, src, name)
	if err != nil {
		tb.Fatal(err)
	}
	return m.Digest
}

func TestResolvePacked(t *testing.T) {
	work, search := t.TempDir(), t.TempDir()
	embedded := fstest.MapFS{"local/twin.toml": {Data: []byte("format = 1\nname = \"local\"\n")}}
	packTwin(t, filepath.Join(work, "local.twin"), "local")
	packTwin(t, filepath.Join(work, "packs", "byPath.twin"), "bypath")
	packTwin(t, filepath.Join(search, "remote.twin"), "remote")
	packTwin(t, filepath.Join(search, "both.twin"), "both")
	writeTwin(t, filepath.Join(search, "both"), "both")
	os.WriteFile(filepath.Join(search, "broken.twin"), []byte("not a tar"), 0o644)
	r := New(work, search, embedded)

	tests := []struct{ arg, where, name string }{
		{"local", filepath.Join(work, "local.twin"), "local"}, // ./NAME.twin before embedded
		{"packs/byPath.twin", filepath.Join(work, "packs", "byPath.twin"), "bypath"},
		{"remote", filepath.Join(search, "remote.twin"), "remote"},
		{"both", filepath.Join(search, "both"), "both"}, // a folder before a pack in the same folder
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			src, err := r.Resolve(tt.arg)
			if err != nil {
				t.Fatal(err)
			}
			if src.Where != tt.where {
				t.Errorf("want %s, have %s", tt.where, src.Where)
			}
			tw, err := src.Load()
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if tw.Name() != tt.name {
				t.Errorf("loaded twin: want %s, have %s", tt.name, tw.Name())
			}
		})
	}

	if _, err := r.Resolve("broken"); err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "not a packed twin") {
		t.Errorf("Resolve(broken): want a read error that is not ErrNotFound, have %v", err)
	}
	listed := map[string]Source{}
	for _, s := range r.List() {
		listed[s.Name] = s
	}
	for name, where := range map[string]string{
		"local":  filepath.Join(work, "local.twin"),
		"remote": filepath.Join(search, "remote.twin"),
		"both":   filepath.Join(search, "both"),
		"broken": filepath.Join(search, "broken.twin"),
	} {
		if listed[name].Where != where {
			t.Errorf("List: %s: want %s, have %q", name, where, listed[name].Where)
		}
	}
	if _, err := listed["broken"].Load(); err == nil || !strings.Contains(err.Error(), "not a packed twin") {
		t.Errorf("List: broken.twin: want Load to say it is not a packed twin, have %v", err)
	}
}
