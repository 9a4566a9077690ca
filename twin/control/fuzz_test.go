package control_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/control"
	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// newCheckout builds the control plane over an engine serving the embedded
// checkout twin.
func newCheckout(tb testing.TB) (*control.Handler, *engine.Engine) {
	tb.Helper()
	load := func(name string) (*format.Twin, error) {
		sub, err := fs.Sub(embedded.FS(), name)
		if err != nil {
			return nil, err
		}
		return format.Load(sub, "embedded twin "+name)
	}
	t, err := load("checkout")
	if err != nil {
		tb.Fatal(err)
	}
	frozen := func() time.Time { return time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) }
	eng, err := engine.New(t, engine.Options{
		Defaults: session.Settings{Clock: session.Clock{Mode: session.ClockReal, Step: time.Second}},
		Scrubber: scrub.New(scrub.DeriveKey([]byte(t.Digest)), scrub.Policy{}),
		Import:   load,
		Now:      frozen,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return control.New(eng, control.Options{Debug: true, Version: "fuzz", Now: frozen}), eng
}

// controlOps are the endpoints a fuzzed body is sent to; %s is the
// fuzzed session name.
var controlOps = []struct{ method, path string }{
	{"POST", "/__wraith/session"},
	{"POST", "/__wraith/session/%s"},
	{"POST", "/__wraith/session/%s/clock"},
	{"POST", "/__wraith/session/fz/clock"},
	{"POST", "/__wraith/session/fz"},
	{"POST", "/__wraith/session/%s/reset"},
	{"DELETE", "/__wraith/session/%s"},
	{"GET", "/__wraith/session/%s/state"},
	{"POST", "/__wraith/reset"},
	{"POST", "/__wraith/session/fz/fork"},
	{"PUT", "/__wraith/session/%s/snapshot"},
	{"GET", "/__wraith/session/%s/journal"},
	{"GET", "/__wraith/session/fz/snapshot"},
	{"GET", "/__wraith/session/%s/diff"},
	{"GET", "/__wraith/session/%s/digest"},
}

var kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

var controlSeeds = []struct {
	op   uint8
	name string
	body string
}{
	{0, "", `{"session":"agent-17","fixture":"checkout:happy-path","seed":17017,"clock":{"mode":"deterministic","base_epoch":1700000000}}`},
	{0, "", `{"session":"a","clock":{"mode":"fixed","base_epoch_secs":5}}`},
	{0, "", `{"session":"a","clock":{"mode":"fixed","base_epoch":1,"base_epoch_secs":2}}`},
	{0, "", `{"session":"a","seed":18446744073709551615}`},
	{0, "", `{"session":"a","seed":"17"}`},
	{0, "", `{"session":"a","seed":1e400}`},
	{0, "", `{"session":"a","fixture":"../x"}`},
	{0, "", `{"session":"../x"}`},
	{0, "", `{"session":"a","colour":1}`},
	{0, "", `{"session":"a"}}`},
	{0, "", `[]`},
	{0, "", `null`},
	{0, "", `{"session":`},
	{1, "agent-9", `{"fixture":"baseline"}`},
	{1, "x", `{"session":"y"}`},
	{1, "../x", ``},
	{1, "a%2Fb", `{}`},
	{2, "fz", `{"advance_secs":60}`},
	{3, "", `{"advance_secs":9223372036854775807}`},
	{3, "", `{"set_epoch":7258118399}`},
	{3, "", `{"advance_secs":1,"set_epoch":1}`},
	{3, "", `{"advance_secs":"1"}`},
	{4, "", `{"seed":1}`},
	{5, "fz", ``},
	{6, "fz", ``},
	{7, "fz", ``},
	{8, "", ``},
	{9, "", `{"session":"b"}`},
	{9, "", `{"session":"fz"}`},
	{9, "", `{"session":"../x"}`},
	{9, "", `{}`},
	{10, "r", `{"format":1}`},
	{10, "r", `{"format":2}`},
	{10, "r", `{"format":1,"twin_digest":"sha256:0"}`},
	{10, "fz", `[]`},
	{11, "fz", ``},
	{12, "", ``},
	{13, "fz", ``},
	{14, "nobody", ``},
}

// FuzzControlBody sends arbitrary bodies and session names to the control
// plane. Whatever arrives, the answer is never a 5xx, always JSON, and
// either a success or the one error shape with a kebab-case code.
func FuzzControlBody(f *testing.F) {
	for _, s := range controlSeeds {
		f.Add(s.op, s.name, []byte(s.body))
	}
	h, eng := newCheckout(f)
	// A real snapshot to mutate, so restores get past the format and
	// twin checks.
	fz := eng.Defaults()
	fz.Clock = session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}
	if _, err := eng.Provision("fz", fz); err != nil {
		f.Fatal(err)
	}
	create := httptest.NewRequest("POST", "/v1/customers", bytes.NewReader([]byte("description=x")))
	create.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	create.Header.Set("X-Wraith-Session", "fz")
	eng.ServeHTTP(httptest.NewRecorder(), create)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/__wraith/session/fz/snapshot", nil))
	f.Add(uint8(10), "restored", w.Body.Bytes())
	f.Fuzz(func(t *testing.T, op uint8, name string, body []byte) {
		// Each input starts from one provisioned session and nothing else,
		// so inputs are independent and memory stays flat.
		for _, s := range eng.Store().All() {
			eng.Store().Delete(s.Name())
		}
		fz := eng.Defaults()
		fz.Clock = session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}
		if _, err := eng.Provision("fz", fz); err != nil {
			t.Fatal(err)
		}
		o := controlOps[int(op)%len(controlOps)]
		target := o.path
		if bytes.Contains([]byte(target), []byte("%s")) {
			target = string(bytes.Replace([]byte(target), []byte("%s"), []byte(url.PathEscape(name)), 1))
		}
		req, err := http.NewRequest(o.method, "http://127.0.0.1"+target, bytes.NewReader(body))
		if err != nil {
			t.Skip()
		}
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)

		if w.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", o.method, target, body, w.Code, w.Body)
		}
		if w.Code >= 300 && w.Code < 400 {
			return // ServeMux's redirect to a clean path; the server's guard answers those first
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("%s %s %q: Content-Type %q, want application/json", o.method, target, body, ct)
		}
		var out map[string]json.RawMessage
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s %s %q: the answer is not a JSON object: %v: %s", o.method, target, body, err, w.Body)
		}
		if w.Code < 300 {
			if _, isErr := out["error"]; isErr {
				t.Fatalf("%s %s %q: %d with an error body: %s", o.method, target, body, w.Code, w.Body)
			}
			return
		}
		var e struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || len(out) != 1 || !kebab.MatchString(e.Error.Code) || e.Error.Message == "" {
			t.Fatalf("%s %s %q: %d is not the error shape {\"error\":{\"code\":kebab,\"message\":…}}: %s", o.method, target, body, w.Code, w.Body)
		}
	})
}
