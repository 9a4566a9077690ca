package record

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wraithdev/wraith/twin/format"
)

// Prepare readies the folder dir for recording and returns the twin in it.
// A folder without twin.toml (or no folder at all) gets a minimal one:
// format 1, the folder's name as the twin's name (lowercased, other
// characters as "-"), and upstream; created says so. The twin is then
// loaded, so that a recording never starts in a folder that would not load.
func Prepare(dir, upstream string) (t *format.Twin, created bool, err error) {
	manifest := filepath.Join(dir, "twin.toml")
	if _, err := os.Stat(manifest); errors.Is(err, fs.ErrNotExist) {
		if upstream == "" {
			return nil, false, fmt.Errorf("%s has no twin.toml: give --upstream, the provider's base URL, to start a new twin there", dir)
		}
		if err := writeManifest(dir, manifest, upstream); err != nil {
			return nil, false, err
		}
		created = true
	} else if err != nil {
		return nil, false, err
	}
	t, err = format.Load(os.DirFS(dir), dir)
	if err != nil {
		return nil, created, fmt.Errorf("%w\n(fix the twin before recording into it)", err)
	}
	return t, created, nil
}

func writeManifest(dir, path, upstream string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	name := nameFrom(filepath.Base(abs))
	if !format.ValidName(name) {
		return fmt.Errorf("cannot make a twin name from the folder name %q: create %s with format = 1 and a name matching %s",
			filepath.Base(abs), path, format.NamePattern)
	}
	// The format's one writer, so a new twin's keys are spelled and laid
	// out as every other twin.toml's; Prepare loads the result below.
	var buf bytes.Buffer
	buf.WriteString("# Written by `wraith record`. Declare resources, routes and the PII policy\n# here: see docs/twin-format.md.\n")
	m := format.Manifest{Format: format.Version, Name: name, Upstream: upstream}
	if err := format.WriteManifest(&buf, &m); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	body := buf.Bytes()
	if err := mkdirSynced(dir); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return syncDir(dir)
}

// nameFrom turns a folder name into a twin name: lowercase, runs of other
// characters as one "-", at most 64 characters.
func nameFrom(folder string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(folder) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_':
			b.WriteRune(c)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.Trim(b.String(), "-._")
	for strings.Contains(name, "..") {
		name = strings.ReplaceAll(name, "..", ".")
	}
	if len(name) > 64 {
		name = strings.TrimRight(name[:64], "-._")
	}
	return name
}
