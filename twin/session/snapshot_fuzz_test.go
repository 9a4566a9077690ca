package session

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzRestore decodes a snapshot's state as PUT snapshot does and
// restores it: whatever the document, Restore returns an error or a
// session, never panics, and a session it returns snapshots to a document
// that passes Validate again and restores to the same digest. Under
// `go test` only the seeds run; `make fuzz` fuzzes it.
func FuzzRestore(f *testing.F) {
	src := holding(f, 3)
	var doc StateDoc
	src.Do(func(st *State) {
		st.Delete(st.Changed("customer")[0])
		doc, _ = st.Doc()
	})
	good, err := json.Marshal(doc)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	for _, seed := range []string{
		`{}`,
		`{"generator":"cGNnOgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==","seq":4294967296}`,
		`{"seq":4294967296,"idempotency":{"k":{"Fingerprint":"` + fingerprint64 + `","Status":0,"Provenance":"handler"}}}`,
		`{"seq":4294967296,"idempotency":{"k":null}}`,
		`{"seq":4294967296,"entities":[{"id":"cus_1","object":"customer","body":"x","provenance":"handler"}]}`,
		`{"seq":4294967296,"entities":[{"id":"cus_1","object":"customer","body":null,"deleted":true,"provenance":"fixture"}]}`,
		`{"seq":4294967296,"counters":{"":1},"fault_counts":[{"Matched":1,"Fired":2}]}`,
	} {
		f.Add([]byte(seed))
	}
	set, _ := src.Settings()
	f.Fuzz(func(t *testing.T, b []byte) {
		var d StateDoc
		if json.Unmarshal(b, &d) != nil {
			return
		}
		s, err := Restore("f", set, nil, &d)
		if err != nil {
			return
		}
		var again StateDoc
		var sum string
		s.Do(func(st *State) {
			sum, _ = st.Digest()
			again, err = st.Doc()
			st.NewID("cus_", 14)
			st.Now(time.Now)
		})
		if err != nil {
			t.Fatalf("a restored session does not snapshot: %v", err)
		}
		if err := again.Validate(); err != nil {
			t.Fatalf("a restored session snapshots to a document Validate refuses: %v", err)
		}
		r, err := Restore("g", set, nil, &again)
		if err != nil {
			t.Fatalf("a restored session's own snapshot does not restore: %v", err)
		}
		if have := digest(r); have != sum {
			t.Errorf("restoring the restored session's snapshot: want digest %s, have %s", sum, have)
		}
	})
}

const fingerprint64 = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"
