package openapi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/openapi"
)

// TestWriteDir writes an import into a new folder and again into the
// existing one: the files are the import's each time, an earlier file the
// import does not produce stays, and no temporary file or folder is left
// beside or inside the twin.
func TestWriteDir(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "twins", "shop")
	first := &openapi.Result{Files: map[string][]byte{"twin.toml": []byte("one"), "fixtures/baseline.json": []byte("{}")}}
	second := &openapi.Result{Files: map[string][]byte{"twin.toml": []byte("two")}}
	if err := first.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644)
	if err := second.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"twin.toml": "two", "fixtures/baseline.json": "{}", "notes.md": "mine"} {
		if have, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(have) != want {
			t.Errorf("%s: want %q, have %q (%v)", p, want, have, err)
		}
	}
	for _, d := range []string{filepath.Join(parent, "twins"), dir, filepath.Join(dir, "fixtures")} {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".wraith-import-") {
				t.Errorf("%s: a temporary %s was left", d, e.Name())
			}
		}
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("%s: want a folder of mode 0755, have %v (%v)", dir, fi.Mode(), err)
	}
}
