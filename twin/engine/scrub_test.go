package engine

import (
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// A twin whose skeleton, create rule and recording all hold raw personal
// data, as a hand-written twin may.
var rawPIITwin = fstest.MapFS{
	"twin.toml": {Data: []byte(`format = 1
name = "people"
provider = "example"
upstream = "https://api.example.test"

[[resources]]
name = "person"
collection = "/people"
item = "/people/{id}"
id_prefix = "per_"
skeleton = '{"id":"","object":"person","created":0,"email":"skeleton@example.com","description":null,"contact":null,"metadata":{}}'
timestamps = ["created"]

[[resources.create]]
set = { contact = { name = "Ops Desk", team = "billing" } }
`)},
	"recordings/r1/0.json": {Data: []byte(`{"format": 1, "recorded_at": "2026-01-02T03:04:05Z",
  "request": {"method": "GET", "path": "/people/per_1"},
  "response": {"status": 200, "headers": {"Content-Type": ["application/json"]},
    "body": {"id": "per_1", "object": "person", "created": 1767000000, "email": "recorded@example.com", "description": null, "contact": null, "metadata": {}}}}`)},
}

// TestWritesScrubWhatTheyStore checks that nothing personal reaches a
// saved entity, now that writes scrub only what they set: parameters
// (nested ones too), rule values, and what they start from (skeleton,
// recorded entity).
func TestWritesScrubWhatTheyStore(t *testing.T) {
	tw, err := format.Load(rawPIITwin, "people")
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(tw, Options{Scrubber: scrub.New(scrub.DeriveKey([]byte("k")), scrub.Policy{})})
	if err != nil {
		t.Fatal(err)
	}
	raw := []string{"skeleton@example.com", "recorded@example.com", "jenny@example.com", "Jenny Rosen", "Ops Desk", "meta@example.com"}
	emailToken := regexp.MustCompile(`^tok_[0-9a-f]{12}@example\.invalid$`)
	noRaw := func(what, body string) {
		t.Helper()
		for _, r := range raw {
			if strings.Contains(body, r) {
				t.Errorf("%s holds %q: %s", what, r, body)
			}
		}
	}

	w, created := serve(t, e, "POST", "/people", "s", "email=jenny%40example.com&name=Jenny+Rosen&description=kept+as+sent&metadata[email]=meta%40example.com")
	if w.Code != 200 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	noRaw("create", w.Body.String())
	if email, _ := created["email"].(string); !emailToken.MatchString(email) {
		t.Errorf("email: want a token, have %q", email)
	}
	if created["description"] != "kept as sent" {
		t.Errorf("description is not personal and must be kept: have %v", created["description"])
	}
	meta, _ := created["metadata"].(map[string]any)
	if email, _ := meta["email"].(string); !emailToken.MatchString(email) {
		t.Errorf("metadata.email: want a token, have %q", email)
	}
	contact, _ := created["contact"].(map[string]any)
	if contact["team"] != "billing" || !strings.HasPrefix(contact["name"].(string), "tok_") {
		t.Errorf("contact set by the create rule: want team kept and name tokenized, have %v", contact)
	}
	id := created["id"].(string)
	_, read := serve(t, e, "GET", "/people/"+id, "s", "")
	if read["email"] != created["email"] {
		t.Errorf("read after create: email %v, created %v", read["email"], created["email"])
	}

	// The same value gets the same token in every write.
	_, again := serve(t, e, "POST", "/people", "s", "email=jenny%40example.com")
	if again["email"] != created["email"] {
		t.Errorf("same email, other token: %v vs %v", again["email"], created["email"])
	}

	// A recorded entity is served as recorded, but a write that takes it up
	// saves it scrubbed.
	w, _ = serve(t, e, "POST", "/people/per_1", "s", "description=changed")
	if w.Code != 200 {
		t.Fatalf("update of the recorded entity: %d %s", w.Code, w.Body)
	}
	noRaw("update of the recorded entity", w.Body.String())
	if !strings.Contains(w.Body.String(), `"description":"changed"`) {
		t.Errorf("update lost its change: %s", w.Body)
	}

	// An entity synthesized from the shape gets no raw value either.
	w, _ = serve(t, e, "GET", "/people/per_unknown", "s", "")
	if w.Code != 200 {
		t.Fatalf("synthesized read: %d %s", w.Code, w.Body)
	}
	noRaw("synthesized read", w.Body.String())
}
