package pack

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/wraithdev/wraith/twin/format"
)

// maxMarker bounds wraith-pack.json.
const maxMarker = 64 << 10

// Open reads the packed twin file path into memory and returns it as a
// read-only file system rooted at the twin, without the marker.
func Open(path string) (*FS, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a packed twin: not a regular file", path)
	}
	if fi.Size() > MaxSize {
		return nil, fmt.Errorf("%s: not a packed twin: %d bytes, over the %d MiB limit", path, fi.Size(), MaxSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fsys, err := Read(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return fsys, nil
}

// Read parses a packed twin held in data. The returned FS does not share
// memory with data.
func Read(data []byte) (*FS, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("not a packed twin: %d bytes, over the %d MiB limit", len(data), MaxSize>>20)
	}
	tr := tar.NewReader(bytes.NewReader(data))
	fsys := newFS()
	var m *Marker
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not a packed twin: %v", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("not a packed twin: entry %q has tar type %q; packed twins hold regular files only", hdr.Name, hdr.Typeflag)
		}
		if hdr.Size < 0 || hdr.Size > int64(len(data)) {
			return nil, fmt.Errorf("not a packed twin: entry %q claims %d bytes in a %d-byte file", hdr.Name, hdr.Size, len(data))
		}
		if m == nil {
			if m, err = readMarker(tr, hdr); err != nil {
				return nil, err
			}
			continue
		}
		if err := checkName(hdr.Name); err != nil {
			return nil, fmt.Errorf("not a packed twin: entry %q: %w", hdr.Name, err)
		}
		b := make([]byte, hdr.Size)
		if _, err := io.ReadFull(tr, b); err != nil {
			return nil, fmt.Errorf("not a packed twin: entry %q: %v", hdr.Name, err)
		}
		if err := fsys.add(hdr.Name, b); err != nil {
			return nil, fmt.Errorf("not a packed twin: %w", err)
		}
	}
	if m == nil {
		return nil, errors.New("not a packed twin: it is empty (no " + MarkerName + ")")
	}
	if n := len(fsys.files); n != m.Files {
		return nil, fmt.Errorf("packed twin is damaged: %s says %d files, the archive holds %d", MarkerName, m.Files, n)
	}
	fsys.index()
	digest, err := format.Digest(fsys)
	if err != nil {
		return nil, err
	}
	if digest != m.Digest {
		return nil, fmt.Errorf("packed twin is damaged: its files hash to %s, but %s says %s", digest, MarkerName, m.Digest)
	}
	fsys.marker = *m
	return fsys, nil
}

func readMarker(tr *tar.Reader, hdr *tar.Header) (*Marker, error) {
	if hdr.Name != MarkerName {
		return nil, fmt.Errorf("not a packed twin: the first entry is %q, want %s", hdr.Name, MarkerName)
	}
	if hdr.Size > maxMarker {
		return nil, fmt.Errorf("not a packed twin: %s is %d bytes, want at most %d", MarkerName, hdr.Size, maxMarker)
	}
	b := make([]byte, hdr.Size)
	if _, err := io.ReadFull(tr, b); err != nil {
		return nil, fmt.Errorf("not a packed twin: %s: %v", MarkerName, err)
	}
	var probe struct {
		Version int `json:"wraith_pack_version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("not a packed twin: %s is not JSON: %v", MarkerName, err)
	}
	if probe.Version != Version {
		return nil, fmt.Errorf("packed twin version %d: this wraith reads version %d (pack it again with this wraith, or use the wraith that packed it)", probe.Version, Version)
	}
	var m Marker
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a packed twin: %s: %v", MarkerName, err)
	}
	if !strings.HasPrefix(m.Digest, "sha256:") || m.Files < 0 {
		return nil, fmt.Errorf("not a packed twin: %s wants a sha256: digest and a file count", MarkerName)
	}
	return &m, nil
}

// checkName accepts the paths Write produces: valid io/fs paths of
// printable characters without backslashes, whose file name is not a
// dotfile, and not the marker's name.
func checkName(name string) error {
	if !fs.ValidPath(name) || name == "." {
		return errors.New(`the path is not relative and clean (no "..", no leading "/", no empty element)`)
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || c == '\\' || c == 0xfffd {
			return fmt.Errorf("the path holds the character %q", c)
		}
	}
	base := name[strings.LastIndexByte(name, '/')+1:]
	if strings.HasPrefix(base, ".") {
		return errors.New("dotfiles are not part of a twin")
	}
	if name == MarkerName {
		return errors.New("the marker appears twice")
	}
	return nil
}
