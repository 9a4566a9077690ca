package compiled

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/dialect/rest"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
)

// widgets is a small twin with a recorded list (queried), a fixture set
// and a create rule that fails on purpose.
var widgets = fstest.MapFS{
	"twin.toml": {Data: []byte(`format = 1
name = "widgets"
provider = "example"

[errors.declined]
status = 402
body = '{"error":{"code":"declined","entity":"{entity}"}}'

[[resources]]
name = "widget"
collection = "/widgets"
item = "/widgets/{id}"
id_prefix = "wid_"
skeleton = '{"id":"","object":"widget","owner":"skeleton@example.com","size":0}'

[[resources.actions]]
name = "paint"
[[resources.actions.rules]]
when = { size = 0 }
set = { size = 1 }
fail = "declined"
`)},
	"recordings/r/0.json": {Data: []byte(`{"format": 1, "recorded_at": "2026-01-02T03:04:05Z",
  "request": {"method": "GET", "path": "/widgets", "query": "b=2&a=1"},
  "response": {"status": 200, "headers": {"Content-Type": ["application/json"]},
    "body": {"id": "wid_r", "object": "widget", "owner": "o@example.com", "size": 3}}}`)},
	"fixtures/base.json": {Data: []byte(`{"format":1,"entities":[{"id":"wid_f","object":"widget","owner":"f@example.com","size":2},{"id":"x_1","object":"unknown"}]}`)},
}

// scrubOwner stands in for the scrubber: it marks the owner field.
func scrubOwner(o *object.Object) {
	if s := o.String("owner"); s != "" {
		o.Set("owner", "scrubbed")
	}
}

func compileWidgets(tb testing.TB) *Twin {
	tb.Helper()
	t, err := format.Load(widgets, "widgets")
	if err != nil {
		tb.Fatal(err)
	}
	c, err := Compile(t, Options{Dialect: rest.New(), Scrub: scrubOwner})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestCompile checks what the engine reads of a compiled twin: what
// writes start from is scrubbed and encoded as scrubbed, recorded answers
// are found by canonical query, a fixture set's world holds only the
// twin's own types, and a declining rule carries its compiled shape.
func TestCompile(t *testing.T) {
	c := compileWidgets(t)
	res := c.Resource("widget")
	if res == nil {
		t.Fatal("no widget resource")
	}
	if want, have := `{"id":"","object":"widget","owner":"scrubbed","size":0}`, string(res.Encoded.Bytes()); have != want {
		t.Errorf("encoded skeleton: want %s, have %s", want, have)
	}
	if want, have := "scrubbed", res.Shape.String("owner"); have != want {
		t.Errorf("recorded shape's owner: want %q, have %q", want, have)
	}
	for _, query := range []string{"a=1&b=2", "b=2&a=1"} {
		if rec := c.Recorded("GET", "/widgets", query, "", nil); rec == nil || rec.Status != 200 {
			t.Errorf("GET /widgets?%s: want the recorded answer, have %v", query, rec)
		}
	}
	if rec := c.Recorded("GET", "/widgets", "a=1", "", nil); rec != nil {
		t.Errorf("GET /widgets?a=1: want no recorded answer, have %d %s", rec.Status, rec.Body)
	}
	if want, have := []string{"widgets:base"}, c.Fixtures(); strings.Join(have, ",") != strings.Join(want, ",") {
		t.Errorf("fixtures: want %v, have %v", want, have)
	}
	q, err := c.QualifyFixture("base")
	if err != nil || q != "widgets:base" {
		t.Fatalf("QualifyFixture(base): want widgets:base, have %q, %v", q, err)
	}
	w := c.World(q)
	if ent := w.Get("wid_f"); ent == nil || !strings.Contains(string(ent.Body()), `"owner":"scrubbed"`) {
		t.Errorf("fixture entity wid_f: want it scrubbed, have %v", ent)
	}
	if ent := w.Get("x_1"); ent != nil {
		t.Errorf("fixture entity of an undeclared type: want it skipped, have %s", ent.Body())
	}
	if _, err := c.QualifyFixture("nope"); err == nil || !strings.Contains(err.Error(), "available: widgets:base") {
		t.Errorf("QualifyFixture(nope): want a FixtureError listing widgets:base, have %v", err)
	}
	paint := res.Actions[0]
	if r := paint.Rules[0]; r.Failure == nil || r.Failure.Status != 402 {
		t.Errorf("paint's declining rule: want its 402 shape compiled, have %+v", r.Failure)
	}
}

// TestCompileRefuses checks that what Compile cannot build is refused
// with a message that says what is missing.
func TestCompileRefuses(t *testing.T) {
	imports := fstest.MapFS{"twin.toml": {Data: []byte(`format = 1
name = "importer"
provider = "example"
[fixtures]
imports = ["widgets"]
`)}}
	tests := []struct {
		name string
		fsys fstest.MapFS
		opts Options
		want string
	}{
		{"no dialect", widgets, Options{Scrub: scrubOwner}, "are both required"},
		{"no scrub", widgets, Options{Dialect: rest.New()}, "are both required"},
		{"imports without a loader", imports, Options{Dialect: rest.New(), Scrub: scrubOwner}, "imports fixtures of widgets, but no twin loader was given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw, err := format.Load(tt.fsys, "twin")
			if err != nil {
				t.Fatal(err)
			}
			_, err = Compile(tw, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("want an error saying %q, have %v", tt.want, err)
			}
		})
	}
}
