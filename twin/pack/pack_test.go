package pack

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
)

// miniTwin is a small valid twin: a manifest, one exchange, one fixture set.
func miniTwin() fstest.MapFS {
	return fstest.MapFS{
		"twin.toml": {Data: []byte("format = 1\nname = \"mini\"\n")},
		"recordings/r1/0.json": {Data: []byte(`{"format":1,"recorded_at":"2026-10-14T09:12:03Z",
  "request":{"method":"GET","path":"/v1/balance","headers":{"Accept":["*/*"]}},
  "response":{"status":200,"headers":{"Content-Type":["application/json"]},"body":{"object":"balance"}}}`)},
		"fixtures/base.json": {Data: []byte(`{"format":1,"description":"one","entities":[{"id":"cus_1","object":"customer"}]}`)},
		"README.md":          {Data: []byte("notes travel with the twin\n")},
	}
}

func embeddedTwin(tb testing.TB, name string) fs.FS {
	tb.Helper()
	sub, err := fs.Sub(embedded.FS(), name)
	if err != nil {
		tb.Fatal(err)
	}
	return sub
}

func mustPack(tb testing.TB, fsys fs.FS) ([]byte, Marker) {
	tb.Helper()
	var buf bytes.Buffer
	m, err := Write(&buf, fsys, "test twin")
	if err != nil {
		tb.Fatalf("Write: %v", err)
	}
	return buf.Bytes(), m
}

// copyToDisk writes fsys under a new temporary folder and returns it.
func copyToDisk(tb testing.TB, fsys fs.FS) string {
	tb.Helper()
	dir := tb.TempDir()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

func TestWriteDeterministic(t *testing.T) {
	for _, name := range []string{"checkout", "billing"} {
		t.Run(name, func(t *testing.T) {
			src := embeddedTwin(t, name)
			want, m := mustPack(t, src)
			again, _ := mustPack(t, src)
			if !bytes.Equal(want, again) {
				t.Fatal("packing the same twin twice: want the same bytes, have different ones")
			}
			digest, err := format.Digest(src)
			if err != nil {
				t.Fatal(err)
			}
			if m.Digest != digest {
				t.Errorf("marker digest: want format.Digest of the folder %s, have %s", digest, m.Digest)
			}

			// The same files elsewhere, with other times and modes, and a
			// dotfile the digest ignores, pack to the same bytes.
			dir := copyToDisk(t, src)
			old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				os.Chtimes(p, old, old)
				if !d.IsDir() {
					os.Chmod(p, 0o600)
				}
				return nil
			})
			os.WriteFile(filepath.Join(dir, ".DS_Store"), []byte("junk"), 0o644)
			have, hm := mustPack(t, os.DirFS(dir))
			if !bytes.Equal(want, have) {
				t.Errorf("packing a copy with other times and modes: want the same bytes, have different ones")
			}
			if hm != m {
				t.Errorf("marker of the copy: want %+v, have %+v", m, hm)
			}
		})
	}
}

func TestWriteLayout(t *testing.T) {
	b, m := mustPack(t, miniTwin())
	tr := tar.NewReader(bytes.NewReader(b))
	var names []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		if hdr.Typeflag != tar.TypeReg || hdr.Mode != 0o644 || hdr.Uid != 0 || hdr.Gid != 0 ||
			hdr.Uname != "" || hdr.Gname != "" || !hdr.ModTime.Equal(time.Unix(0, 0)) {
			t.Errorf("entry %s: want a regular file, mode 0644, owner 0:0 unnamed, mtime 0; have type %q mode %o owner %d:%d %q:%q mtime %v",
				hdr.Name, hdr.Typeflag, hdr.Mode, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname, hdr.ModTime)
		}
		if hdr.Name == MarkerName {
			body, _ := io.ReadAll(tr)
			want := `{"wraith_pack_version":1,"twin":"mini","digest":"` + m.Digest + `","files":4}` + "\n"
			if string(body) != want {
				t.Errorf("marker: want %s, have %s", want, body)
			}
		}
	}
	want := []string{MarkerName, "README.md", "fixtures/base.json", "recordings/r1/0.json", "twin.toml"}
	if !slices.Equal(names, want) {
		t.Errorf("entries: want %q, have %q", want, names)
	}
}

func TestReadRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys fs.FS
	}{
		{"mini", miniTwin()},
		{"checkout", embeddedTwin(t, "checkout")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, m := mustPack(t, tc.fsys)
			fsys, err := Read(b)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if fsys.Marker() != m {
				t.Errorf("Marker: want %+v, have %+v", m, fsys.Marker())
			}
			paths, err := format.Files(tc.fsys)
			if err != nil {
				t.Fatal(err)
			}
			if err := fstest.TestFS(fsys, paths...); err != nil {
				t.Errorf("fstest.TestFS: %v", err)
			}
			for _, p := range paths {
				want, _ := fs.ReadFile(tc.fsys, p)
				have, err := fs.ReadFile(fsys, p)
				if err != nil || !bytes.Equal(want, have) {
					t.Errorf("%s: want the folder's %d bytes, have %d (%v)", p, len(want), len(have), err)
				}
			}
			orig, err := format.Load(tc.fsys, "folder")
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := format.Load(fsys, "pack")
			if err != nil {
				t.Fatalf("format.Load(packed): %v", err)
			}
			if loaded.Digest != orig.Digest || len(loaded.Exchanges) != len(orig.Exchanges) || len(loaded.Fixtures) != len(orig.Fixtures) {
				t.Errorf("loaded from the pack: want digest %s, %d exchanges, %d fixture sets; have %s, %d, %d",
					orig.Digest, len(orig.Exchanges), len(orig.Fixtures), loaded.Digest, len(loaded.Exchanges), len(loaded.Fixtures))
			}
		})
	}
}

func TestWriteRefuses(t *testing.T) {
	with := func(edits map[string]string) fstest.MapFS {
		m := miniTwin()
		for k, v := range edits {
			if v == "" {
				delete(m, k)
				continue
			}
			m[k] = &fstest.MapFile{Data: []byte(v)}
		}
		return m
	}
	for _, tc := range []struct {
		name string
		fsys fs.FS
		want []string
	}{
		{"no manifest", with(map[string]string{"twin.toml": ""}), []string{"refusing to pack an invalid twin", "no twin.toml"}},
		{"every problem listed", with(map[string]string{
			"twin.toml":            "format = 2\nname = \"mini\"\n",
			"recordings/r1/x.json": "{}",
		}), []string{"refusing to pack an invalid twin", "format is 2", "x.json"}},
		{"credential header", with(map[string]string{"recordings/r1/1.json": `{"format":1,"recorded_at":"2026-10-14T09:12:03Z",
			"request":{"method":"GET","path":"/v1/x","headers":{"Authorization":["Bearer sk_live_1"]}},
			"response":{"status":200,"headers":{"Set-Cookie":["a=b"]},"body_text":"ok"}}`}),
			[]string{"holds credentials", "recordings/r1/1.json: request header Authorization", "response header Set-Cookie"}},
		{"planted credentials", with(map[string]string{
			"recordings/r1/1.json": `{"format":1,"recorded_at":"2026-10-14T09:12:03Z",
			"request":{"method":"GET","path":"/v1/x"},
			"response":{"status":200,"body":{"data":[{"note":"key sk_live_51HplantedKey0123"}],"id_token":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig"}}}`,
			"fixtures/base.json": `{"format":1,"entities":[{"id":"cus_1","object":"customer","metadata":{"aws":"AKIAIOSFODNN7EXAMPLE"}}]}`,
			"README.md":          "notes\nuse ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
		}), []string{"holds credentials",
			"twins/mini/recordings/r1/1.json: $.response.body.data[0].note holds a credential (Stripe secret or restricted key)",
			"twins/mini/recordings/r1/1.json: $.response.body.id_token holds a credential (JWT)",
			"twins/mini/fixtures/base.json: $.entities[0].metadata.aws holds a credential (AWS access key id)",
			"twins/mini/README.md: line 2 holds a credential (GitHub token)",
			"record them again"}},
		{"reserved name", with(map[string]string{MarkerName: "{}"}), []string{"reserved"}},
		{"backslash", with(map[string]string{`notes\x.md`: "x"}), []string{`character '\\'`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := Write(&buf, tc.fsys, "twins/mini")
			if err == nil {
				t.Fatal("Write: want an error, have none")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("want %q in the error, have %v", w, err)
				}
			}
			if buf.Len() != 0 {
				t.Errorf("want nothing written, have %d bytes", buf.Len())
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "mini.twin")
	os.WriteFile(out, []byte("an older pack"), 0o644)
	m, err := WriteFile(out, miniTwin(), "mini")
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := Open(out)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if fsys.Marker() != m {
		t.Errorf("Marker: want %+v, have %+v", m, fsys.Marker())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder after WriteFile: want only mini.twin, have %v", entries)
	}
}

// entry is one tar entry of a hand-made archive.
type entry struct {
	name string
	typ  byte
	body string
	size int64 // when not len(body)
}

func tarOf(tb testing.TB, entries ...entry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Typeflag: typ, Name: e.name, Mode: 0o644, Size: int64(len(e.body)), ModTime: time.Unix(0, 0)}
		if typ == tar.TypeSymlink || typ == tar.TypeLink {
			hdr.Linkname, hdr.Size = "/etc/passwd", 0
		}
		if typ == tar.TypeDir {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			tb.Fatalf("tar %s: %v", e.name, err)
		}
		io.WriteString(tw, e.body)
	}
	tw.Close()
	return buf.Bytes()
}

// marker returns a marker entry for files (path -> content).
func marker(tb testing.TB, files map[string]string, edit func(*Marker)) entry {
	tb.Helper()
	m := fstest.MapFS{}
	for p, b := range files {
		m[p] = &fstest.MapFile{Data: []byte(b)}
	}
	d, err := format.Digest(m)
	if err != nil {
		tb.Fatal(err)
	}
	mk := Marker{Version: 1, Twin: "t", Digest: d, Files: len(files)}
	if edit != nil {
		edit(&mk)
	}
	b, _ := json.Marshal(mk)
	return entry{name: MarkerName, body: string(b)}
}

func TestReadRefuses(t *testing.T) {
	toml := entry{name: "twin.toml", body: "format = 1\nname = \"t\"\n"}
	ok := map[string]string{"twin.toml": toml.body}
	two := map[string]string{"twin.toml": toml.body, "a": "x"}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty file", nil, "empty"},
		{"not a tar", []byte("format = 1\nname = \"t\"\n"), "not a packed twin"},
		{"marker not first", tarOf(t, toml, marker(t, ok, nil)), "first entry is \"twin.toml\""},
		{"newer version", tarOf(t, marker(t, ok, func(m *Marker) { m.Version = 2 }), toml), "version 2"},
		{"marker not JSON", tarOf(t, entry{name: MarkerName, body: "{"}, toml), "not JSON"},
		{"marker unknown field", tarOf(t, entry{name: MarkerName, body: `{"wraith_pack_version":1,"digest":"sha256:x","files":1,"extra":1}`}, toml), "unknown field"},
		{"marker too big", tarOf(t, entry{name: MarkerName, body: strings.Repeat(" ", maxMarker+1)}), "at most"},
		{"symlink", tarOf(t, marker(t, ok, nil), entry{name: "twin.toml", typ: tar.TypeSymlink}), "regular files only"},
		{"hard link", tarOf(t, marker(t, ok, nil), entry{name: "twin.toml", typ: tar.TypeLink}), "regular files only"},
		{"folder entry", tarOf(t, marker(t, ok, nil), entry{name: "recordings/", typ: tar.TypeDir}, toml), "regular files only"},
		{"dot dot", tarOf(t, marker(t, ok, nil), entry{name: "../twin.toml", body: "x"}), "not relative and clean"},
		{"inner dot dot", tarOf(t, marker(t, ok, nil), entry{name: "a/../../b", body: "x"}), "not relative and clean"},
		{"absolute", tarOf(t, marker(t, ok, nil), entry{name: "/etc/passwd", body: "x"}), "not relative and clean"},
		{"empty element", tarOf(t, marker(t, ok, nil), entry{name: "a//b", body: "x"}), "not relative and clean"},
		{"dot element", tarOf(t, marker(t, ok, nil), entry{name: "./twin.toml", body: "x"}), "not relative and clean"},
		{"backslash", tarOf(t, marker(t, ok, nil), entry{name: `..\x`, body: "x"}), "character"},
		{"control character", tarOf(t, marker(t, ok, nil), entry{name: "a\nb", body: "x"}), "character"},
		{"dotfile", tarOf(t, marker(t, ok, nil), entry{name: "recordings/.x", body: "x"}), "dotfiles"},
		{"marker twice", tarOf(t, marker(t, ok, nil), entry{name: MarkerName, body: "{}"}), "marker appears twice"},
		{"duplicate", tarOf(t, marker(t, ok, nil), toml, toml), "appears twice"},
		{"file then folder", tarOf(t, marker(t, two, nil), entry{name: "a", body: "x"}, entry{name: "a/b", body: "y"}), "which is a file"},
		{"folder then file", tarOf(t, marker(t, two, nil), entry{name: "a/b", body: "y"}, entry{name: "a", body: "x"}), "a file and a folder"},
		{"tampered", tarOf(t, marker(t, ok, nil), entry{name: "twin.toml", body: "format = 1\nname = \"u\"\n"}), "damaged: its files hash"},
		{"file missing", tarOf(t, marker(t, two, nil), toml), "says 2 files, the archive holds 1"},
		{"truncated", tarOf(t, marker(t, ok, nil), toml)[:1024+100], "not a packed twin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, err := Read(tc.data)
			if err == nil {
				t.Fatalf("Read: want an error mentioning %q, have a twin %+v", tc.want, fsys.Marker())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want %q in the error, have %v", tc.want, err)
			}
		})
	}
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.twin")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxSize + 1) // sparse: nothing is read
	f.Close()
	for _, tc := range []struct{ name, path, want string }{
		{"over the limit", huge, "over the 256 MiB limit"},
		{"a folder", dir, "not a regular file"},
		{"missing", filepath.Join(dir, "nope.twin"), "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open(%s): want an error mentioning %q, have %v", tc.path, tc.want, err)
			}
			if tc.name == "missing" && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Open(missing): want fs.ErrNotExist, have %v", err)
			}
		})
	}
}
