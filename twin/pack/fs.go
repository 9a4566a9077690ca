package pack

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"time"
)

// FS is a packed twin in memory: a read-only fs.FS rooted at the twin
// folder. It is safe for concurrent use.
type FS struct {
	marker Marker
	files  map[string][]byte
	dirs   map[string][]fs.DirEntry // "." is the root
}

var (
	_ fs.ReadFileFS = (*FS)(nil)
	_ fs.ReadDirFS  = (*FS)(nil)
	_ fs.StatFS     = (*FS)(nil)
)

func newFS() *FS {
	return &FS{files: map[string][]byte{}, dirs: map[string][]fs.DirEntry{".": nil}}
}

// Marker returns the pack's wraith-pack.json.
func (f *FS) Marker() Marker { return f.marker }

// add adds a file, refusing duplicates and paths that are both a file and
// a folder.
func (f *FS) add(name string, b []byte) error {
	if _, ok := f.files[name]; ok {
		return fmt.Errorf("entry %q appears twice", name)
	}
	if _, ok := f.dirs[name]; ok {
		return fmt.Errorf("entry %q is a file and a folder", name)
	}
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if _, ok := f.files[dir]; ok {
			return fmt.Errorf("entry %q is inside %q, which is a file", name, dir)
		}
	}
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if _, ok := f.dirs[dir]; ok {
			break
		}
		f.dirs[dir] = nil
	}
	f.files[name] = b
	return nil
}

// index fills each folder's sorted entries once every file is added.
func (f *FS) index() {
	for name, b := range f.files {
		dir := path.Dir(name)
		f.dirs[dir] = append(f.dirs[dir], fs.FileInfoToDirEntry(&info{name: path.Base(name), size: int64(len(b))}))
	}
	for name := range f.dirs {
		if name == "." {
			continue
		}
		dir := path.Dir(name)
		f.dirs[dir] = append(f.dirs[dir], fs.FileInfoToDirEntry(&info{name: path.Base(name), dir: true}))
	}
	for _, entries := range f.dirs {
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	}
}

// Open implements fs.FS.
func (f *FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if b, ok := f.files[name]; ok {
		return &file{info: info{name: path.Base(name), size: int64(len(b))}, r: bytes.NewReader(b)}, nil
	}
	if entries, ok := f.dirs[name]; ok {
		return &dir{info: info{name: path.Base(name), dir: true}, entries: entries}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// ReadFile implements fs.ReadFileFS. The caller owns the returned slice.
func (f *FS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: fs.ErrInvalid}
	}
	if b, ok := f.files[name]; ok {
		return bytes.Clone(b), nil
	}
	if _, ok := f.dirs[name]; ok {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: fmt.Errorf("is a directory")}
	}
	return nil, &fs.PathError{Op: "readfile", Path: name, Err: fs.ErrNotExist}
}

// ReadDir implements fs.ReadDirFS. The caller owns the returned slice.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	entries, ok := f.dirs[name]
	if !ok {
		if _, isFile := f.files[name]; isFile {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: fmt.Errorf("not a directory")}
		}
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return append([]fs.DirEntry(nil), entries...), nil
}

// Stat implements fs.StatFS.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if b, ok := f.files[name]; ok {
		return &info{name: path.Base(name), size: int64(len(b))}, nil
	}
	if _, ok := f.dirs[name]; ok {
		return &info{name: path.Base(name), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// info describes a file or folder of a packed twin. Times are the zero
// time: a pack records none.
type info struct {
	name string
	size int64
	dir  bool
}

func (i *info) Name() string { return i.name }
func (i *info) Size() int64  { return i.size }
func (i *info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i *info) ModTime() time.Time { return time.Time{} }
func (i *info) IsDir() bool        { return i.dir }
func (i *info) Sys() any           { return nil }

// file is an open file.
type file struct {
	info info
	r    *bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error)                { return &f.info, nil }
func (f *file) Read(p []byte) (int, error)                { return f.r.Read(p) }
func (f *file) ReadAt(p []byte, off int64) (int, error)   { return f.r.ReadAt(p, off) }
func (f *file) Seek(off int64, whence int) (int64, error) { return f.r.Seek(off, whence) }
func (f *file) Close() error                              { return nil }

// dir is an open folder.
type dir struct {
	info    info
	entries []fs.DirEntry
	off     int
}

func (d *dir) Stat() (fs.FileInfo, error) { return &d.info, nil }
func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fmt.Errorf("is a directory")}
}
func (d *dir) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return append([]fs.DirEntry(nil), rest...), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.off += n
	return append([]fs.DirEntry(nil), rest[:n]...), nil
}
