package format

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/wraithdev/wraith/twin/reqschema"
)

// Twin is a loaded, validated twin.
type Twin struct {
	Manifest  Manifest
	Exchanges []*Exchange // in recording name order, then index order
	Fixtures  map[string]*FixtureSet
	// Digest is "sha256:" and the hex SHA-256 of the twin's files, see Digest.
	Digest string
	// RecordedAt is the newest exchange's recorded_at, or twin.toml's
	// recorded_at (an imported twin's) when that is newer; zero without
	// either.
	RecordedAt time.Time
	// Requests are the provider's request schemas (RequestsFile), what
	// requests are checked against; nil when the twin has none.
	Requests *reqschema.File
}

// RequestsFile is the file of a twin folder that holds its request
// schemas (package reqschema), written by wraith import openapi.
const RequestsFile = "requests.json"

// Name returns the twin's name.
func (t *Twin) Name() string { return t.Manifest.Name }

// FixtureNames returns the twin's own fixture set names, sorted.
func (t *Twin) FixtureNames() []string {
	names := make([]string, 0, len(t.Fixtures))
	for n := range t.Fixtures {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Problems collects every problem found while loading, so a user fixes them
// all in one pass.
type Problems []string

func (p Problems) Error() string {
	if len(p) == 1 {
		return p[0]
	}
	return fmt.Sprintf("%d problems:\n  %s", len(p), strings.Join(p, "\n  "))
}

func (p *Problems) addf(format string, args ...any) {
	*p = append(*p, fmt.Sprintf(format, args...))
}

// NamePattern is what twin, recording and fixture set names must match. It
// keeps names safe as path elements: no separators, no "..".
var NamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// ValidName reports whether s is a valid twin, recording or fixture name.
func ValidName(s string) bool {
	return NamePattern.MatchString(s) && !strings.Contains(s, "..")
}

// Load reads and validates the twin rooted at fsys. where names it in
// messages (a folder path, or "embedded twin checkout").
func Load(fsys fs.FS, where string) (*Twin, error) {
	var probs Problems
	t := &Twin{Fixtures: map[string]*FixtureSet{}}

	raw, err := fs.ReadFile(fsys, "twin.toml")
	if err != nil {
		return nil, fmt.Errorf("%s: no twin.toml: %w (a twin folder needs twin.toml, see docs/twin-format.md)", where, err)
	}
	if err := decodeManifest(raw, &t.Manifest); err != nil {
		probs.addf("%s/twin.toml: %v", where, err)
		return nil, probs
	}
	validateManifest(&t.Manifest, where+"/twin.toml", &probs)
	// An imported twin has no recordings: its description's date is what
	// it is as of. A newer exchange (recorded into it later) wins below.
	t.RecordedAt = t.Manifest.RecordedAt.UTC()

	loadRecordings(fsys, where, t, &probs)
	loadFixtures(fsys, where, t, &probs)
	loadRequests(fsys, where, t, &probs)
	if len(probs) > 0 {
		return nil, probs
	}
	digest, err := Digest(fsys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	t.Digest = digest
	return t, nil
}

func decodeManifest(raw []byte, m *Manifest) error {
	dec := toml.NewDecoder(bytes.NewReader(raw)).DisallowUnknownFields()
	if err := dec.Decode(m); err != nil {
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) {
			// [errors.*] tables beyond the known keys are extra error
			// shapes, not mistakes; the strict decoder has filled the rest.
			msgs, err := decodeExtraErrors(raw, m, strict)
			if err != nil {
				return err
			}
			if len(msgs) == 0 {
				return nil
			}
			return errors.New(strings.Join(msgs, "; "))
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return fmt.Errorf("line %d col %d: %v (key %q)", row, col, de, strings.Join(de.Key(), "."))
		}
		return err
	}
	return nil
}

var recordingFile = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})\.json$`)

func loadRecordings(fsys fs.FS, where string, t *Twin, probs *Problems) {
	dirs, err := fs.ReadDir(fsys, "recordings")
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		probs.addf("%s/recordings: %v", where, err)
		return
	}
	for _, d := range dirs { // ReadDir sorts by name
		if hidden(d.Name()) {
			continue
		}
		if !d.IsDir() {
			probs.addf("%s/recordings/%s: want a folder per recording, found a file", where, d.Name())
			continue
		}
		if !ValidName(d.Name()) {
			probs.addf("%s/recordings/%s: recording names must match %s", where, d.Name(), NamePattern)
			continue
		}
		dir := path.Join("recordings", d.Name())
		files, err := fs.ReadDir(fsys, dir)
		if err != nil {
			probs.addf("%s/%s: %v", where, dir, err)
			continue
		}
		var exs []*Exchange
		for _, f := range files {
			if hidden(f.Name()) {
				continue
			}
			file := path.Join(dir, f.Name())
			if !recordingFile.MatchString(f.Name()) {
				probs.addf("%s/%s: exchange files are named <index>.json (0.json, 1.json, ...)", where, file)
				continue
			}
			idx, _ := strconv.Atoi(strings.TrimSuffix(f.Name(), ".json"))
			ex, err := loadExchange(fsys, file)
			if err != nil {
				probs.addf("%s/%s: %v", where, file, err)
				continue
			}
			ex.Recording, ex.Index = d.Name(), idx
			exs = append(exs, ex)
		}
		sort.Slice(exs, func(i, j int) bool { return exs[i].Index < exs[j].Index })
		for _, ex := range exs {
			if ex.RecordedAt.After(t.RecordedAt) {
				t.RecordedAt = ex.RecordedAt
			}
		}
		t.Exchanges = append(t.Exchanges, exs...)
	}
}

func loadExchange(fsys fs.FS, file string) (*Exchange, error) {
	b, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, err
	}
	var ex Exchange
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ex); err != nil {
		return nil, fmt.Errorf("not a valid exchange: %v", err)
	}
	var probs []string
	if ex.Format != Version {
		probs = append(probs, fmt.Sprintf("format is %d, want %d", ex.Format, Version))
	}
	if ex.RecordedAt.IsZero() {
		probs = append(probs, "recorded_at is missing (want an RFC 3339 time)")
	}
	if !validMethod(ex.Request.Method) {
		probs = append(probs, fmt.Sprintf("request.method %q is not an HTTP method", ex.Request.Method))
	}
	if !strings.HasPrefix(ex.Request.Path, "/") {
		probs = append(probs, fmt.Sprintf("request.path %q must start with /", ex.Request.Path))
	}
	if len(ex.Request.Body) > 0 && ex.Request.Form != "" {
		probs = append(probs, "request has both body and form: keep one")
	}
	if ex.Response.Status < 100 || ex.Response.Status > 599 {
		probs = append(probs, fmt.Sprintf("response.status %d is not an HTTP status", ex.Response.Status))
	}
	if len(ex.Response.Body) > 0 && ex.Response.BodyText != "" {
		probs = append(probs, "response has both body and body_text: keep one")
	}
	if len(probs) > 0 {
		return nil, errors.New(strings.Join(probs, "; "))
	}
	return &ex, nil
}

func validMethod(m string) bool {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		return true
	}
	return false
}

func loadFixtures(fsys fs.FS, where string, t *Twin, probs *Problems) {
	files, err := fs.ReadDir(fsys, "fixtures")
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		probs.addf("%s/fixtures: %v", where, err)
		return
	}
	for _, f := range files {
		if hidden(f.Name()) {
			continue
		}
		name, ok := strings.CutSuffix(f.Name(), ".json")
		file := path.Join("fixtures", f.Name())
		if f.IsDir() || !ok || !ValidName(name) {
			probs.addf("%s/%s: fixture sets are files <set>.json with set names matching %s", where, file, NamePattern)
			continue
		}
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			probs.addf("%s/%s: %v", where, file, err)
			continue
		}
		var set FixtureSet
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&set); err != nil {
			probs.addf("%s/%s: not a valid fixture set: %v", where, file, err)
			continue
		}
		if set.Format != Version {
			probs.addf("%s/%s: format is %d, want %d", where, file, set.Format, Version)
			continue
		}
		for i, e := range set.Entities {
			var head struct {
				ID     string `json:"id"`
				Object string `json:"object"`
			}
			if err := json.Unmarshal(e, &head); err != nil || head.ID == "" || head.Object == "" {
				probs.addf("%s/%s: entities[%d] must be a JSON object with string fields id and object", where, file, i)
			}
		}
		set.Name = name
		t.Fixtures[name] = &set
	}
}

// hidden reports names the loader and Files pass over: dotfiles such as
// editor swap files and folders such as .git.
// loadRequests reads the twin's request schemas, when it has them.
func loadRequests(fsys fs.FS, where string, t *Twin, probs *Problems) {
	raw, err := fs.ReadFile(fsys, RequestsFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		probs.addf("%s/%s: %v", where, RequestsFile, err)
		return
	}
	f, err := reqschema.Parse(raw)
	if err != nil {
		probs.addf("%s/%s: %v (regenerate it with wraith import openapi, see docs/validation.md)", where, RequestsFile, err)
		return
	}
	t.Requests = f
}

func hidden(name string) bool { return strings.HasPrefix(name, ".") }

// Files lists a twin's files, sorted by path: every regular file, except
// those whose name starts with "." or that lie under a folder whose name
// does ("./.git/...", editor swap files). It is what Digest covers and what
// a pack holds.
func Files(fsys fs.FS) ([]string, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && hidden(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list twin files: %w", err)
	}
	sort.Strings(paths)
	return paths, nil
}

// Digest returns "sha256:<hex>" over the twin's files (see Files), by path
// in byte order, as path, NUL, length, NUL, content. The same files give
// the same digest wherever they are.
func Digest(fsys fs.FS) (string, error) {
	paths, err := Files(fsys)
	if err != nil {
		return "", fmt.Errorf("digest: %w", err)
	}
	h := sha256.New()
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return "", fmt.Errorf("digest: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
