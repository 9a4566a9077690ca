package scrub

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// FuzzJSON checks that JSON and RequestJSON never panic, keep valid
// documents valid, and are idempotent. Run it with
//
//	go test ./twin/scrub/ -run '^$' -fuzz FuzzJSON -fuzztime 30s
func FuzzJSON(f *testing.F) {
	customer, err := os.ReadFile("testdata/customer.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(customer),
		`{"email":"a@b.co","name":["x",{"y":"z"}],"n":1e3}`,
		`{"em\u0061il":"\ud83d\ude00","phone":"+1 (415) 555-0199"}`,
		`[{"address":{"line1":null,"city":"Paris"}},true,"s",-0.5]`,
		`{"metadata":{"EMAIL":"tok_0123456789ab"}}`,
		`{"password":"x","a":[{"refresh_token":"y"},"4242 4242 4242 4242"],"max_tokens":3,"b":"sk_live_0123456789ab"}`,
		`{"a":`,
		`"\u0000"`,
	} {
		f.Add([]byte(seed))
	}
	s := New([]byte(testKey), Policy{Verbatim: []string{"metadata"}})
	f.Fuzz(func(t *testing.T, in []byte) {
		once, err := s.JSON(in)
		if valid := json.Valid(in); valid != (err == nil) {
			t.Fatalf("JSON(%q): input valid=%v, have error %v", in, valid, err)
		}
		if err != nil {
			return
		}
		if !json.Valid(once) {
			t.Fatalf("JSON(%q): want valid JSON, have %q", in, once)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, once); err != nil || !bytes.Equal(compact.Bytes(), once) {
			t.Errorf("JSON(%q): want compact output, have %q", in, once)
		}
		twice, err := s.JSON(once)
		if err != nil || !bytes.Equal(once, twice) {
			t.Errorf("JSON twice on %q: want %q, have %q (%v)", in, once, twice, err)
		}
		req, err := s.NewPass().RequestJSON(in)
		if err != nil || !json.Valid(req) {
			t.Fatalf("RequestJSON(%q): want valid JSON, have %q (%v)", in, req, err)
		}
		if again, err := s.NewPass().RequestJSON(req); err != nil || !bytes.Equal(again, req) {
			t.Errorf("RequestJSON twice on %q: want %q, have %q (%v)", in, req, again, err)
		}
	})
}
