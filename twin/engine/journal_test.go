package engine

import (
	"net/http/httptest"
	"testing"

	"github.com/wraithdev/wraith/twin/session"
)

// TestJournalSharesRecordedBytes: journal entries of recorded answers
// refer to the answer bytes built at load, never to copies, so a journal
// of recorded reads costs an entry each and no body.
func TestJournalSharesRecordedBytes(t *testing.T) {
	e := newCheckout(t, Options{})
	var seen []session.Entry
	e.Store().OnEntry(func(_ string, ent *session.Entry) { seen = append(seen, *ent) })
	for range 3 {
		e.ServeHTTP(httptest.NewRecorder(), newRequest(t, "GET", "/v1/customers/cus_123", "j", ""))
	}
	s := e.Store().Get("j")
	entries, dropped := s.Journal().Entries()
	if len(entries) != 3 || dropped != 0 || len(seen) != 3 {
		t.Fatalf("want 3 entries and 3 reports, have %d (dropped %d) and %d", len(entries), dropped, len(seen))
	}
	rec := e.recordedFor(&request{method: "GET", path: "/v1/customers/cus_123"})
	for i, ent := range entries {
		if ent.Provenance != ProvRecorded || len(ent.RespBody.Bytes) == 0 || &ent.RespBody.Bytes[0] != &rec.Body[0] {
			t.Errorf("entry %d: want the recorded answer's own bytes, have provenance %s and a copy", i, ent.Provenance)
		}
		if ent.Index != int64(i) || ent.Route != "GET /v1/customers/{id}" || !ent.Answered || ent.Served == 0 {
			t.Errorf("entry %d: %+v", i, ent)
		}
	}
}
