package format

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// committedTwins are the folders holding a committed twin.toml: the
// embedded twins and those under testdata, found by walking, so a twin
// added later is covered too.
func committedTwins(tb testing.TB) []string {
	tb.Helper()
	var dirs []string
	for _, root := range []string{"../embedded", "../../testdata", "testdata"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == "twin.toml" {
				dirs = append(dirs, filepath.Dir(p))
			}
			return nil
		})
		if err != nil {
			tb.Fatalf("walk %s: %v", root, err)
		}
	}
	return dirs
}

// withManifest is the twin in dir with its twin.toml replaced by raw.
func withManifest(tb testing.TB, dir string, raw []byte) fstest.MapFS {
	tb.Helper()
	fsys := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		fsys[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	fsys["twin.toml"] = &fstest.MapFile{Data: raw}
	return fsys
}

// TestWriteManifestRoundTrip loads every committed twin, writes its
// manifest with WriteManifest and loads that again: the manifests must be
// equal. An imported twin (one with import-report.json, as an import
// writes it) was written by WriteManifest, so its bytes must come back
// exactly: otherwise `make twins` would change the committed file.
func TestWriteManifestRoundTrip(t *testing.T) {
	imported := map[string]bool{}
	for _, dir := range committedTwins(t) {
		t.Run(dir, func(t *testing.T) {
			first, err := Load(os.DirFS(dir), dir)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteManifest(&buf, &first.Manifest); err != nil {
				t.Fatal(err)
			}
			again, err := Load(withManifest(t, dir, buf.Bytes()), dir+" (written)")
			if err != nil {
				t.Fatalf("the written twin.toml does not load: %v\n%s", err, buf.Bytes())
			}
			if d := manifestDiff(first.Manifest, again.Manifest); d != "" {
				t.Errorf("the written twin.toml loads as another manifest: %s", d)
			}
			if _, err := os.Stat(filepath.Join(dir, "import-report.json")); err != nil {
				return
			}
			imported[filepath.Base(dir)] = true
			committed, err := os.ReadFile(filepath.Join(dir, "twin.toml"))
			if err != nil {
				t.Fatal(err)
			}
			if want, have := committed, buf.Bytes(); !bytes.Equal(want, have) {
				t.Errorf("written bytes differ from the committed twin.toml at byte %d of %d (committed %d): run `make twins`", firstDiff(want, have), len(have), len(want))
			}
		})
	}
	for _, name := range []string{"stripe", "github"} {
		if !imported[name] {
			t.Errorf("the imported twin %s was not among those checked byte for byte (found %v)", name, imported)
		}
	}
}

// manifestDiff names the first top-level field (and element, for a list)
// in which want and have differ, or returns "": a whole twin's manifest
// is too long for a message.
func manifestDiff(want, have Manifest) string {
	wv, hv := reflect.ValueOf(want), reflect.ValueOf(have)
	for i := range wv.NumField() {
		w, h := wv.Field(i), hv.Field(i)
		if reflect.DeepEqual(w.Interface(), h.Interface()) {
			continue
		}
		name := wv.Type().Field(i).Name
		if w.Kind() == reflect.Slice && w.Len() == h.Len() {
			for j := range w.Len() {
				if !reflect.DeepEqual(w.Index(j).Interface(), h.Index(j).Interface()) {
					return fmt.Sprintf("%s[%d]: want %s, have %s", name, j, cut(w.Index(j).Interface()), cut(h.Index(j).Interface()))
				}
			}
		}
		return fmt.Sprintf("%s: want %s, have %s", name, cut(w.Interface()), cut(h.Interface()))
	}
	return ""
}

func cut(v any) string {
	s := fmt.Sprintf("%+v", v)
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestWriteManifestLayout pins what the writer decides beyond go-toml's
// defaults: which zero values are left out, that an empty list is kept
// apart from an absent one, how [errors] is laid out with and without
// extra shapes, and recorded_at as a quoted string.
func TestWriteManifestLayout(t *testing.T) {
	notFound := &Answer{Status: 404, Body: `{"error":"{id}"}`}
	declined := &Answer{Status: 402, Body: `{"error":"declined"}`}
	widget := Resource{Name: "widget", Collection: "/widgets", Item: "/widgets/{id}", IDPrefix: "wid_", Skeleton: `{"id":"","object":"widget"}`}
	tests := []struct {
		name string
		edit func(m *Manifest)
		want []string // substrings, in this order
		not  []string
	}{{
		name: "zero values are left out",
		edit: func(m *Manifest) {},
		want: []string{"format = 1\nname = 'demo'\n\n[[resources]]\nname = 'widget'\ncollection = '/widgets'\nitem = '/widgets/{id}'\nid_prefix = 'wid_'\nskeleton = "},
		not:  []string{"provider", "recorded_at", "[pii]", "fixtures", "[errors]", "routes", "timestamps", "actions", "fault_profiles", "key"},
	}, {
		name: "an empty list is written, a nil one is not",
		edit: func(m *Manifest) {
			m.PII.Fields = []string{}
			m.Resources[0].Actions = []Action{{Name: "a", Params: []string{}}, {Name: "b"}}
		},
		want: []string{"[pii]\nfields = []\n", "name = 'a'\nparams = []\n", "name = 'b'\n"},
		not:  []string{"verbatim", "[errors]", "name = 'b'\nparams"},
	}, {
		name: "errors in the format's order without extra shapes",
		edit: func(m *Manifest) {
			m.Errors.RateLimited = &Answer{Status: 429, Body: "{}"}
			m.Errors.NotFound = notFound
		},
		want: []string{"[errors.not_found]", "[errors.rate_limited]"},
	}, {
		name: "every error shape by name with extra shapes",
		edit: func(m *Manifest) {
			m.Errors.RateLimited = &Answer{Status: 429, Body: "{}"}
			m.Errors.NotFound = notFound
			m.Errors.Extra = map[string]*Answer{"card_declined": declined}
		},
		want: []string{"[errors.card_declined]\nstatus = 402", "[errors.not_found]\nstatus = 404", "[errors.rate_limited]"},
	}, {
		name: "recorded_at is a quoted string",
		edit: func(m *Manifest) {
			m.Description = "d"
			m.RecordedAt = mustTime(t, "2026-08-26T00:00:00Z")
		},
		want: []string{"description = 'd'\nrecorded_at = '2026-08-26T00:00:00Z'\n"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Manifest{Format: Version, Name: "demo", Resources: []Resource{widget}}
			tt.edit(&m)
			var buf bytes.Buffer
			if err := WriteManifest(&buf, &m); err != nil {
				t.Fatal(err)
			}
			have := buf.String()
			rest := have
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("want %q (after the previous ones) in\n%s", w, have)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tt.not {
				if strings.Contains(have, n) {
					t.Errorf("want no %q in\n%s", n, have)
				}
			}
			tw, err := Load(fstest.MapFS{"twin.toml": {Data: buf.Bytes()}}, "written")
			if err != nil {
				t.Fatalf("the written twin.toml does not load: %v\n%s", err, have)
			}
			if d := manifestDiff(m, tw.Manifest); d != "" {
				t.Errorf("the written twin.toml loads as another manifest: %s", d)
			}
		})
	}
}

// TestDocumentMirrorsManifest keeps document, the writer's top level, to
// Manifest's fields, keys and order, so a field added to Manifest is
// written too.
func TestDocumentMirrorsManifest(t *testing.T) {
	mt, dt := reflect.TypeFor[Manifest](), reflect.TypeFor[document]()
	if want, have := mt.NumField(), dt.NumField(); want != have {
		t.Fatalf("document has %d fields, Manifest %d: add the missing ones to document and newDocument", have, want)
	}
	for i := range mt.NumField() {
		mf, df := mt.Field(i), dt.Field(i)
		if want, have := mf.Name+" "+mf.Tag.Get("toml"), df.Name+" "+df.Tag.Get("toml"); want != have {
			t.Errorf("field %d: want %s as in Manifest, have %s", i, want, have)
		}
		if mf.Type != df.Type && mf.Name != "Errors" && mf.Name != "RecordedAt" {
			t.Errorf("field %s: want type %s as in Manifest, have %s", mf.Name, mf.Type, df.Type)
		}
	}
	// newDocument copies every field: a manifest with each one set comes
	// back from the written bytes.
	m := Manifest{Format: Version, Name: "full", Provider: "p", Dialect: "rest", Upstream: "https://example.com", Hosts: []string{"api.example.com"}, Description: "d",
		RecordedAt: mustTime(t, "2026-01-02T00:00:00Z"), PII: PII{Verbatim: []string{"email"}},
		Fixtures: Fixtures{Imports: []string{"other:baseline"}}, Errors: Errors{NotFound: &Answer{Status: 404, Body: "{}"}},
		Routes:    []Route{{Method: "GET", Path: "/v1/balance", Body: "{}"}},
		Resources: []Resource{{Name: "widget", Collection: "/widgets", Item: "/widgets/{id}", IDPrefix: "wid_", Skeleton: `{"id":"","object":"widget"}`}},
	}
	var buf bytes.Buffer
	if err := WriteManifest(&buf, &m); err != nil {
		t.Fatal(err)
	}
	var have Manifest
	if err := decodeManifest(buf.Bytes(), &have); err != nil {
		t.Fatalf("decode the written manifest: %v\n%s", err, buf.Bytes())
	}
	for i := range mt.NumField() {
		if want, have := reflect.ValueOf(m).Field(i).Interface(), reflect.ValueOf(have).Field(i).Interface(); !reflect.DeepEqual(want, have) {
			t.Errorf("%s: want %+v, have %+v", mt.Field(i).Name, want, have)
		}
	}
}

// TestWriteManifestFaultProfiles writes manifests holding fault profiles
// and loads them back, with Load and, for the [[fault_profiles]] part
// alone, with ParseFaultProfiles (the built-in profiles' reader): the
// profiles must come back equal. Every field is set somewhere, and the
// minimal rule (a name and a latency) must not gain nth = [], which
// would make it a rule that never fires.
func TestWriteManifestFaultProfiles(t *testing.T) {
	half, zero, five := 0.5, 0.0, int64(5)
	every := FaultRule{
		Name:    "confirm-500",
		Match:   FaultMatch{Method: "POST", Route: "/widgets/{id}"},
		When:    FaultWhen{Probability: &half, MaxFires: 3},
		Phase:   "post",
		Effect:  &FaultEffect{Error: "api_error"},
		Latency: "lognormal(120ms,0.4,5s)",
	}
	minimal := FaultRule{Name: "slow", Latency: "250ms"}
	tests := []struct {
		name     string
		profiles []FaultProfile
		errors   Errors
		not      []string // keys the written profiles must not hold
	}{{
		name:     "a minimal rule",
		profiles: []FaultProfile{{Name: "slow", Rules: []FaultRule{minimal}}},
		not:      []string{"description", "nth", "probability", "every", "after", "max_fires", "match", "when", "phase", "effect", "status"},
	}, {
		name: "every field",
		profiles: []FaultProfile{{Name: "flaky", Description: "fails the way the provider does", Rules: []FaultRule{
			every,
			{Name: "third", When: FaultWhen{Nth: []int64{3, 7}}, Effect: &FaultEffect{Status: 503, Body: `{"error":"busy"}`}},
			{Name: "tenth", Match: FaultMatch{Method: "GET"}, When: FaultWhen{Every: 10}, Effect: &FaultEffect{Reset: "before_headers"}},
			{Name: "later", Match: FaultMatch{Route: "/widgets"}, When: FaultWhen{After: &five}, Phase: "pre", Latency: "1ms"},
			{Name: "after-zero", When: FaultWhen{After: new(int64)}, Latency: "1ms"},
			{Name: "never-by-chance", When: FaultWhen{Probability: &zero}, Latency: "1ms"},
			{Name: "never-by-count", When: FaultWhen{Nth: []int64{}}, Latency: "1ms"},
		}}, {Name: "slow", Rules: []FaultRule{minimal}}},
	}, {
		name: "profiles without rules, and an effect naming an extra error shape",
		profiles: []FaultProfile{{Name: "empty"}, {Name: "listed-empty", Rules: []FaultRule{}},
			{Name: "declines", Rules: []FaultRule{{Name: "card", Effect: &FaultEffect{Error: "card_declined"}}}}},
		errors: Errors{Extra: map[string]*Answer{"card_declined": {Status: 402, Body: `{"error":"declined"}`}}},
		not:    []string{"description"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Manifest{Format: Version, Name: "demo", Errors: tt.errors, FaultProfiles: tt.profiles,
				Resources: []Resource{{Name: "widget", Collection: "/widgets", Item: "/widgets/{id}", IDPrefix: "wid_", Skeleton: `{"id":"","object":"widget"}`}}}
			var buf bytes.Buffer
			if err := WriteManifest(&buf, &m); err != nil {
				t.Fatal(err)
			}
			tw, err := Load(fstest.MapFS{"twin.toml": {Data: buf.Bytes()}}, "written")
			if err != nil {
				t.Fatalf("the written twin.toml does not load: %v\n%s", err, buf.Bytes())
			}
			if d := manifestDiff(m, tw.Manifest); d != "" {
				t.Errorf("the written twin.toml loads as another manifest: %s\n%s", d, buf.Bytes())
			}
			// fault_profiles is Manifest's last field, so the written
			// profiles are the file's tail.
			i := bytes.Index(buf.Bytes(), []byte("[[fault_profiles]]"))
			if i < 0 {
				t.Fatalf("want [[fault_profiles]] in\n%s", buf.Bytes())
			}
			written := buf.Bytes()[i:]
			for _, n := range tt.not {
				if bytes.Contains(written, []byte(n)) {
					t.Errorf("want no %q in\n%s", n, written)
				}
			}
			if len(tt.errors.Extra) > 0 {
				return // ParseFaultProfiles has no [errors.*] beside them
			}
			have, err := ParseFaultProfiles(written, "written profiles")
			if err != nil {
				t.Fatalf("the written profiles do not parse: %v\n%s", err, written)
			}
			if !reflect.DeepEqual(tt.profiles, have) {
				t.Errorf("want %s, have %s", cut(tt.profiles), cut(have))
			}
		})
	}
}

func mustTime(tb testing.TB, s string) time.Time {
	tb.Helper()
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		tb.Fatal(err)
	}
	return ts
}
