package record

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/wraithdev/wraith/twin/format"
)

// TestPrepareWritesWithFormatWriter: the twin.toml Prepare makes is the
// format's writer's bytes for the loaded manifest, after the comment, and
// holds only its three keys (no empty [pii] or [errors] headers). It
// fails if Prepare or the writer spells or lays out twin.toml on its own.
func TestPrepareWritesWithFormatWriter(t *testing.T) {
	const header = "# Written by `wraith record`. Declare resources, routes and the PII policy\n# here: see docs/twin-format.md.\n"
	for _, tc := range []struct {
		folder, upstream, want string
	}{
		{"plain", "https://api.example.test", "format = 1\nname = 'plain'\nupstream = 'https://api.example.test'\n"},
		{"Quoted API", "https://api.example.test/it's", "format = 1\nname = 'quoted-api'\nupstream = \"https://api.example.test/it's\"\n"},
	} {
		t.Run(tc.folder, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tc.folder)
			tw, created, err := Prepare(dir, tc.upstream)
			if err != nil || !created {
				t.Fatalf("want a new twin, have created=%v, %v", created, err)
			}
			have, err := os.ReadFile(filepath.Join(dir, "twin.toml"))
			if err != nil {
				t.Fatal(err)
			}
			if want := header + tc.want; string(have) != want {
				t.Errorf("want\n%s\nhave\n%s", want, have)
			}
			var written bytes.Buffer
			if err := format.WriteManifest(&written, &tw.Manifest); err != nil {
				t.Fatal(err)
			}
			if want, have := header+written.String(), string(have); want != have {
				t.Errorf("want the writer's bytes\n%s\nhave\n%s", want, have)
			}
		})
	}
}
