package pack

import (
	"archive/tar"
	"bytes"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/format"
)

// FuzzRead feeds Read arbitrary bytes. It must never panic nor accept a
// pack whose files do not hash to its marker, nor a path Write would not
// write; a twin it accepts repacks to bytes that read back the same.
func FuzzRead(f *testing.F) {
	mini, _ := mustPack(f, miniTwin())
	f.Add(mini)
	f.Add(mini[:len(mini)/2])
	f.Add([]byte{})
	toml := entry{name: "twin.toml", body: "format = 1\nname = \"t\"\n"}
	ok := map[string]string{"twin.toml": toml.body}
	f.Add(tarOf(f, marker(f, ok, nil), toml))
	f.Add(tarOf(f, marker(f, ok, nil), entry{name: "../twin.toml", body: toml.body}))
	f.Add(tarOf(f, marker(f, ok, nil), entry{name: "twin.toml", typ: tar.TypeSymlink}))
	f.Add(tarOf(f, marker(f, ok, nil), toml, toml))
	f.Add(tarOf(f, marker(f, map[string]string{"a": "x", "twin.toml": toml.body}, nil), entry{name: "a", body: "x"}, entry{name: "a/b", body: "y"}))
	f.Add(tarOf(f, entry{name: MarkerName, body: `{"wraith_pack_version":2}`}))

	f.Fuzz(func(t *testing.T, data []byte) {
		fsys, err := Read(data)
		if err != nil {
			return
		}
		paths, err := format.Files(fsys)
		if err != nil {
			t.Fatalf("walk an accepted pack: %v", err)
		}
		if len(paths) != fsys.Marker().Files {
			t.Fatalf("accepted pack: marker says %d files, walk finds %d", fsys.Marker().Files, len(paths))
		}
		for _, p := range paths {
			if err := checkName(p); err != nil {
				t.Fatalf("accepted pack holds %q: %v", p, err)
			}
		}
		if d, err := format.Digest(fsys); err != nil || d != fsys.Marker().Digest {
			t.Fatalf("accepted pack: marker digest %s, files hash to %s (%v)", fsys.Marker().Digest, d, err)
		}
		if err := fstest.TestFS(fsys, paths...); err != nil {
			t.Fatalf("accepted pack is not a well-behaved fs.FS: %v", err)
		}
		var once bytes.Buffer
		m, err := Write(&once, fsys, "fuzz")
		if err != nil {
			return // a valid pack of an invalid twin: nothing to repack
		}
		back, err := Read(once.Bytes())
		if err != nil {
			t.Fatalf("repacked twin does not read back: %v", err)
		}
		if back.Marker() != m || m.Digest != fsys.Marker().Digest {
			t.Fatalf("repacked marker %+v, want digest %s", back.Marker(), fsys.Marker().Digest)
		}
		var twice bytes.Buffer
		if _, err := Write(&twice, fs.FS(back), "fuzz"); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("packing a packed twin again: want the same bytes, have different ones (%v)", err)
		}
	})
}
