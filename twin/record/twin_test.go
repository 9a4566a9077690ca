package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrepare(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		name     string
		folder   string
		manifest string // existing twin.toml, if any
		upstream string
		created  bool
		twin     string
		err      string
	}{
		{"new folder", "My Payments API", "", "https://api.example.test", true, "my-payments-api", ""},
		{"existing empty folder", "stripe", "", "https://api.stripe.com", true, "stripe", ""},
		{"existing twin kept", "kept", "format = 1\nname = \"custom\"\nupstream = \"https://old.example.test\"\n", "https://new.example.test", false, "custom", ""},
		{"existing twin, no upstream given", "kept2", "format = 1\nname = \"kept2\"\n", "", false, "kept2", ""},
		{"no twin, no upstream", "fresh", "", "", false, "", "give --upstream"},
		{"invalid twin", "broken", "format = 2\nname = \"broken\"\n", "https://x.test", false, "", "fix the twin before recording"},
		{"no name to make", "___", "", "https://x.test", false, "", "cannot make a twin name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(root, tc.folder)
			if tc.manifest != "" {
				os.MkdirAll(dir, 0o755)
				os.WriteFile(filepath.Join(dir, "twin.toml"), []byte(tc.manifest), 0o644)
			} else if tc.name == "existing empty folder" {
				os.MkdirAll(dir, 0o755)
			}
			tw, created, err := Prepare(dir, tc.upstream)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("want an error mentioning %q, have %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if created != tc.created || tw.Name() != tc.twin {
				t.Errorf("want created=%v twin %q, have created=%v twin %q", tc.created, tc.twin, created, tw.Name())
			}
			b, _ := os.ReadFile(filepath.Join(dir, "twin.toml"))
			if tc.manifest != "" && string(b) != tc.manifest {
				t.Errorf("an existing twin.toml was changed:\n%s", b)
			}
			if created && (tw.Manifest.Upstream != tc.upstream || tw.Manifest.Format != 1) {
				t.Errorf("new twin.toml: want format 1 and upstream %s, have\n%s", tc.upstream, b)
			}
		})
	}
}
