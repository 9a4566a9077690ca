package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
)

// writeFiles writes files (path -> content) under dir.
func writeFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for p, content := range files {
		to := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(to, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

func embeddedDigest(tb testing.TB, name string) string {
	tb.Helper()
	sub, err := fs.Sub(embedded.FS(), name)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := format.Digest(sub)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// TestPackCommand packs the embedded checkout twin, twice, and serves the
// pack pinned to the digest pack printed.
func TestPackCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	want := embeddedDigest(t, "checkout")
	var packs [][]byte
	for _, out := range []string{"checkout.twin", "again.twin"} {
		f, stdout, stderr := testFactory(dir, nil)
		if code := run([]string{"pack", "checkout", "-o", out}, f); code != exitOK {
			t.Fatalf("pack: want exit 0, have %d: %s", code, stderr)
		}
		if have := stdout.String(); have != want+"\n" {
			t.Errorf("pack stdout: want the digest %s, have %q", want, have)
		}
		if !strings.Contains(stderr.String(), "packed checkout (") {
			t.Errorf("pack stderr: want a summary, have %q", stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		packs = append(packs, b)
	}
	if !bytes.Equal(packs[0], packs[1]) {
		t.Error("packing the same twin twice: want the same bytes")
	}

	packed := filepath.Join(dir, "checkout.twin")
	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"inspect", packed, "--format", "json"}, f); code != exitOK {
		t.Fatalf("inspect the pack: exit %d: %s", code, stderr)
	}
	var doc struct{ Digest, Source string }
	json.Unmarshal(stdout.Bytes(), &doc)
	if doc.Digest != want || doc.Source != packed {
		t.Errorf("inspect the pack: want digest %s from %s, have %+v", want, packed, doc)
	}

	p := startServe(t, packed, "--digest", want)
	if p.ready.Serve.Digest != want {
		t.Errorf("serve the pack: ready digest want %s, have %s", want, p.ready.Serve.Digest)
	}
	resp, err := http.Get(p.ready.Serve.URL + "/v1/balance")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("X-Wraith-Provenance") != "recorded" || !strings.Contains(string(body), `"object":"balance"`) {
		t.Errorf("GET /v1/balance from the pack: want the recorded balance, have %s %s", resp.Header.Get("X-Wraith-Provenance"), body)
	}
}

func TestPackErrors(t *testing.T) {
	t.Parallel()
	twins := map[string]string{
		"twins/good/twin.toml":  "format = 1\nname = \"good\"\n",
		"twins/bad/twin.toml":   "format = 2\nname = \"bad\"\n",
		"twins/creds/twin.toml": "format = 1\nname = \"creds\"\n",
		"twins/creds/recordings/r/0.json": `{"format":1,"recorded_at":"2026-10-14T09:12:03Z",
			"request":{"method":"GET","path":"/x","headers":{"Authorization":["Bearer sk_live_1"]}},"response":{"status":200,"body_text":"ok"}}`,
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"pack", "good"}, exitUsage, "pack needs -o FILE.twin"},
		{[]string{"pack", "good", "-o", "good.tar"}, exitUsage, "must end in .twin"},
		{[]string{"pack", "good", "extra", "-o", "x.twin"}, exitUsage, "takes TWIN_DIR"},
		{[]string{"pack", "nope", "-o", "x.twin"}, exitUsage, `no twin named "nope"`},
		{[]string{"pack", "good", "-o", "twins/good/good.twin"}, exitUsage, "inside the twin folder"},
		{[]string{"pack", "bad", "-o", "bad.twin"}, exitRuntime, "refusing to pack an invalid twin"},
		{[]string{"pack", "creds", "-o", "creds.twin"}, exitRuntime, "request header Authorization is a credential"},
		{[]string{"pack", "good", "-o", "no/such/folder/good.twin"}, exitRuntime, "does the folder exist"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, twins)
			f, stdout, stderr := testFactory(dir, nil)
			if code := run(tc.args, f); code != tc.code {
				t.Fatalf("want exit %d, have %d: %s", tc.code, code, stderr)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("want %q in %q", tc.want, stderr)
			}
			if stdout.Len() != 0 {
				t.Errorf("want nothing on stdout, have %q", stdout)
			}
			matches, _ := filepath.Glob(filepath.Join(dir, "*.twin"))
			if len(matches) != 0 {
				t.Errorf("want no .twin written, have %v", matches)
			}
		})
	}
}
