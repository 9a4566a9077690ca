package resolve

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
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
		{"packed.twin", false, "not served by this build"},
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
