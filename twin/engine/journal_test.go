package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
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
		if ent.Provenance != ProvRecorded || len(ent.RespBody().Bytes) == 0 || &ent.RespBody().Bytes[0] != &rec.Body[0] {
			t.Errorf("entry %d: want the recorded answer's own bytes, have provenance %s and a copy", i, ent.Provenance)
		}
		if ent.Index != int64(i) || ent.Route != "GET /v1/customers/{id}" || !ent.Answered || ent.Served == 0 {
			t.Errorf("entry %d: %+v", i, ent)
		}
	}
}

// TestJournalRefersToEntities: a create's, an update's and a read's
// entries refer to the entity version the answer was instead of holding
// its bytes, so a journal of creates costs what the entities' patches
// are, not each answer again; the entry gives back the answer byte for
// byte. An answer that is not the entity (an expansion) keeps its bytes.
func TestJournalRefersToEntities(t *testing.T) {
	e := newCheckout(t, Options{})
	const n = 50
	var answers []string
	for i := range n {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, newRequest(t, "POST", "/v1/customers", "j", fmt.Sprintf("email=user%d%%40example.com&description=customer+%d", i, i)))
		if w.Code != 200 {
			t.Fatalf("create %d: %d %s", i, w.Code, w.Body)
		}
		answers = append(answers, w.Body.String())
	}
	var created struct{ ID string }
	json.Unmarshal([]byte(answers[0]), &created)
	for _, r := range []*http.Request{
		newRequest(t, "POST", "/v1/customers/"+created.ID, "j", "description=changed"),
		newRequest(t, "GET", "/v1/customers/"+created.ID, "j", ""),
	} {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		answers = append(answers, w.Body.String())
	}
	s := e.Store().Get("j")
	entries, _ := s.Journal().Entries()
	if len(entries) != len(answers) {
		t.Fatalf("want %d entries, have %d", len(answers), len(entries))
	}
	answered := 0
	for i, ent := range entries {
		if have := string(ent.RespBody().Bytes); have != answers[i] || ent.RespSize() != len(answers[i]) {
			t.Errorf("entry %d: the journal's answer (%d bytes) is not the one served (%d bytes)", i, ent.RespSize(), len(answers[i]))
		}
		answered += len(answers[i])
	}
	// What the journal is charged for: each entry's struct, its request,
	// and the patches of the versions it refers to. The answers alone
	// were more than that before.
	if have := s.Journal().Bytes(); have >= int64(answered) {
		t.Errorf("a journal of %d answers (%d bytes) is charged %d bytes: want it to refer to the entities, not hold their bytes", len(answers), answered, have)
	}
}
