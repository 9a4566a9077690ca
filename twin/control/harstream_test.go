package control

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// writes is a ResponseWriter that keeps each Write apart.
type writes struct {
	header http.Header
	status int
	parts  [][]byte
}

func (w *writes) Header() http.Header { return w.header }
func (w *writes) WriteHeader(s int)   { w.status = s }
func (w *writes) Write(b []byte) (int, error) {
	w.parts = append(w.parts, append([]byte(nil), b...))
	return len(b), nil
}

// TestHARStreams: the HAR export writes its document an entry at a time,
// so the largest write is about one entry, not the document (before, the
// whole document was built and written at once); the parts still make one
// valid HAR of every entry.
func TestHARStreams(t *testing.T) {
	sub, err := fs.Sub(embedded.FS(), "checkout")
	if err != nil {
		t.Fatal(err)
	}
	tw, err := format.Load(sub, "embedded twin checkout")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(tw, engine.Options{
		Defaults: session.Settings{Clock: session.Clock{Mode: session.ClockReal, Step: time.Second}},
		Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	h := New(eng, Options{Version: "test"})
	prov := httptest.NewRequest("POST", "/__wraith/session", strings.NewReader(`{"session":"big"}`))
	rec := httptest.NewRecorder()
	if h.ServeHTTP(rec, prov); rec.Code != http.StatusCreated {
		t.Fatalf("provision: want 201, have %d %s", rec.Code, rec.Body)
	}
	const n = 30
	body := `{"bogus":"` + strings.Repeat("x", 2000) + `"}`
	for i := 0; i < n; i++ {
		r := httptest.NewRequest("POST", "/v1/customers", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Wraith-Session", "big")
		eng.ServeHTTP(httptest.NewRecorder(), r)
	}
	s, err := eng.Session("big")
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := s.Journal().Entries()
	w := &writes{header: http.Header{}}
	h.writeHAR(w, "big", entries)

	largest, all := 0, []byte(nil)
	for _, p := range w.parts {
		largest = max(largest, len(p))
		all = append(all, p...)
	}
	if len(w.parts) < n {
		t.Errorf("want at least one write per entry (%d), have %d", n, len(w.parts))
	}
	if len(all) < n*len(body) || largest > 2*len(all)/n {
		t.Errorf("want no write much over one entry (%d bytes of %d in all), have one of %d", len(all)/n, len(all), largest)
	}
	var doc struct {
		Log struct {
			Version string
			Creator struct{ Name, Version string }
			Entries []json.RawMessage
		}
	}
	if err := json.Unmarshal(all, &doc); err != nil || len(doc.Log.Entries) != n || doc.Log.Version != "1.2" || doc.Log.Creator.Version != "test" {
		t.Errorf("want one HAR 1.2 by wraith test of %d entries, have %+v (%v)", n, doc.Log.Creator, err)
	}
	if w.status != http.StatusOK || w.header.Get("Content-Type") != "application/json" {
		t.Errorf("want 200 application/json, have %d %q", w.status, w.header.Get("Content-Type"))
	}
}
