// Package pack writes twins into packed .twin files and reads them back.
//
// # Format, version 1
//
// A packed twin is an uncompressed POSIX tar archive (USTAR headers; PAX
// only for a path USTAR cannot hold):
//
//   - The first entry is wraith-pack.json, the version marker:
//     {"wraith_pack_version":1,"twin":"checkout","digest":"sha256:…","files":72}
//     followed by a newline.
//   - Then every file of the twin folder that the twin digest covers
//     (format.Digest: regular files whose name does not start with "."),
//     one regular-file entry each, sorted by path in byte order.
//   - Every entry has mode 0644, uid and gid 0, no user or group name, and
//     a modification time of 0 (1970-01-01). There are no directory,
//     link or device entries.
//
// So the same files give the same bytes, wherever and whenever they are
// packed, by any build. The archive is not compressed because compressed
// bytes depend on the compressor's version; compress it for transport if
// size matters.
//
// The marker's digest is the twin digest of the files, the same value
// format.Digest gives for the folder: a digest names the content, not the
// container, so `--digest` pins hold for a folder and its pack alike.
//
// # Reading untrusted packs
//
// Read and Open parse files that may come from anywhere. They accept only
// what Write produces: the marker first, regular files only, paths that are
// valid io/fs paths (no "..", no leading "/", no backslash, no empty
// element, no dotfile), no duplicate and no path that is both a file and a
// folder, at most MaxSize bytes in all. The files must hash to the marker's
// digest.
package pack

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// Version is the packed twin format version this package writes and reads.
const Version = 1

// MarkerName is the first entry of every packed twin.
const MarkerName = "wraith-pack.json"

// MaxSize bounds a packed twin: 256 MiB.
const MaxSize = 256 << 20

// Marker is the content of wraith-pack.json.
type Marker struct {
	Version int    `json:"wraith_pack_version"`
	Twin    string `json:"twin"`
	Digest  string `json:"digest"`
	Files   int    `json:"files"`
}

// rescrubHint is the way out of a refusal.
const rescrubHint = "(revoke any live key listed; then delete those exchanges and record them again, " +
	"which scrubs them, or replace each value by hand, and pack again; see docs/recording.md, \"Scrubbing\")"

// epoch is every entry's modification time.
var epoch = time.Unix(0, 0)

// Write validates the twin rooted at fsys and writes it, packed, to w.
// where names the twin in messages. An invalid twin, or one whose
// recordings still hold credential headers, is refused with every problem
// listed.
func Write(w io.Writer, fsys fs.FS, where string) (Marker, error) {
	b, m, err := pack(fsys, where)
	if err != nil {
		return Marker{}, err
	}
	if _, err := w.Write(b); err != nil {
		return Marker{}, fmt.Errorf("write packed twin: %w", err)
	}
	return m, nil
}

// WriteFile packs the twin rooted at fsys into the file path: written to a
// temporary file beside it, synced, then renamed over path, so readers see
// the old file or the whole new one.
func WriteFile(path string, fsys fs.FS, where string) (Marker, error) {
	b, m, err := pack(fsys, where)
	if err != nil {
		return Marker{}, err
	}
	if err := writeAtomic(path, b); err != nil {
		return Marker{}, err
	}
	return m, nil
}

func pack(fsys fs.FS, where string) ([]byte, Marker, error) {
	t, err := format.Load(fsys, where)
	if err != nil {
		return nil, Marker{}, fmt.Errorf("refusing to pack an invalid twin: %w", err)
	}
	if probs := credentialProblems(t, where); len(probs) > 0 {
		return nil, Marker{}, fmt.Errorf("refusing to pack a twin that holds credentials: %w\n%s", probs, rescrubHint)
	}
	paths, err := format.Files(fsys)
	if err != nil {
		return nil, Marker{}, fmt.Errorf("%s: %w", where, err)
	}
	probs, err := secretProblems(fsys, paths, where)
	if err != nil {
		return nil, Marker{}, err
	}
	if len(probs) > 0 {
		return nil, Marker{}, fmt.Errorf("refusing to pack a twin that holds credentials: %w\n%s", probs, rescrubHint)
	}
	m := Marker{Version: Version, Twin: t.Name(), Digest: t.Digest, Files: len(paths)}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mb, _ := json.Marshal(m)
	if err := add(tw, MarkerName, append(mb, '\n')); err != nil {
		return nil, Marker{}, err
	}
	for _, p := range paths {
		if p == MarkerName {
			return nil, Marker{}, fmt.Errorf("%s/%s: the name is reserved for the packed twin's marker: rename or remove the file", where, p)
		}
		if err := checkName(p); err != nil {
			return nil, Marker{}, fmt.Errorf("%s/%s: %w: rename the file", where, p, err)
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, Marker{}, fmt.Errorf("%s: %w", where, err)
		}
		if err := add(tw, p, b); err != nil {
			return nil, Marker{}, err
		}
		if buf.Len() > MaxSize {
			return nil, Marker{}, fmt.Errorf("%s: the packed twin would be over %d MiB, the most a .twin may hold: split its recordings into smaller twins", where, MaxSize>>20)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, Marker{}, fmt.Errorf("pack %s: %w", where, err)
	}
	if buf.Len() > MaxSize {
		return nil, Marker{}, fmt.Errorf("%s: the packed twin would be over %d MiB, the most a .twin may hold: split its recordings into smaller twins", where, MaxSize>>20)
	}
	// Read back what was written: a pack that does not open, or whose
	// digest is not the folder's (the folder changed while packing), is
	// never handed out.
	back, err := Read(buf.Bytes())
	if err != nil {
		return nil, Marker{}, fmt.Errorf("pack %s: the packed twin does not read back: %w", where, err)
	}
	if back.Marker() != m {
		return nil, Marker{}, fmt.Errorf("pack %s: the packed twin reads back as %+v, want %+v (did the folder change while packing? pack again)", where, back.Marker(), m)
	}
	return buf.Bytes(), m, nil
}

func add(tw *tar.Writer, name string, b []byte) error {
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     name,
		Mode:     0o644,
		Size:     int64(len(b)),
		ModTime:  epoch,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("pack %s: %w", name, err)
	}
	if _, err := tw.Write(b); err != nil {
		return fmt.Errorf("pack %s: %w", name, err)
	}
	return nil
}

// credentialProblems finds recorded headers that wraith record would have
// removed: a twin is shared, and a pack must not carry live credentials.
func credentialProblems(t *format.Twin, where string) format.Problems {
	var probs format.Problems
	for _, ex := range t.Exchanges {
		for side, h := range map[string]http.Header{"request": ex.Request.Headers, "response": ex.Response.Headers} {
			kept := scrub.Headers(h)
			var names []string
			for name := range h {
				if _, ok := kept[name]; !ok {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			for _, name := range names {
				probs = append(probs, fmt.Sprintf("%s/recordings/%s/%d.json: %s header %s is a credential: remove it (wraith record never writes it)",
					where, ex.Recording, ex.Index, side, name))
			}
		}
	}
	sort.Strings(probs)
	return probs
}

func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w (does the folder exist and is it writable?)", path, err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(b); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
