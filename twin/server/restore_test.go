package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestRestoreValidates: a snapshot's settings go through the rules
// provisioning does, and its entities through the twin's limits and
// resources; each bad document is a 400 with the code provisioning would
// answer, its message led by the JSON path of the bad value (also the
// "path" detail), and nothing is stored.
func TestRestoreValidates(t *testing.T) {
	srv := startServer(t, "checkout", "--max-entities", "3")
	base := srv.URL()
	provisionDet(t, base, "src")
	fill(t, base, "src", 2)
	resp, snap := do(t, base, call{path: "/__wraith/session/src/snapshot"})
	if resp.StatusCode != 200 {
		t.Fatalf("snapshot: %d %s", resp.StatusCode, snap)
	}
	if resp, body := do(t, base, call{method: "PUT", path: "/__wraith/session/good/snapshot", json: string(snap)}); resp.StatusCode != 201 {
		t.Fatalf("restoring the snapshot as taken: want 201, have %d %s", resp.StatusCode, body)
	}
	entity := func(id, object string) map[string]any {
		return map[string]any{"id": id, "object": object, "body": map[string]any{"id": id, "object": object}, "created": 1700000000, "seq": 1, "provenance": "handler"}
	}
	for _, tc := range []struct {
		name, code, path string
		edit             func(doc map[string]any)
	}{
		{"negative epoch", "invalid-clock", "settings.clock_epoch", func(d map[string]any) { settings(d)["clock_epoch"] = -1 }},
		{"epoch past 2199", "invalid-clock", "settings.clock_epoch", func(d map[string]any) { settings(d)["clock_epoch"] = 7258118400 }},
		{"unknown clock", "invalid-clock", "settings.clock", func(d map[string]any) { settings(d)["clock"] = "sundial" }},
		{"step 0s", "invalid-clock", "settings.clock_step", func(d map[string]any) { settings(d)["clock_step"] = "0s" }},
		{"step over 24h", "invalid-clock", "settings.clock_step", func(d map[string]any) { settings(d)["clock_step"] = "25h" }},
		{"step not a duration", "invalid-snapshot", "settings.clock_step", func(d map[string]any) { settings(d)["clock_step"] = "soon" }},
		{"step on a fixed clock", "invalid-clock", "settings.clock_step", func(d map[string]any) { settings(d)["clock"] = "fixed" }},
		{"rate limit unreadable", "invalid-snapshot", "settings.rate_limit", func(d map[string]any) { settings(d)["rate_limit"] = "lots" }},
		{"pii_verbatim bad name", "invalid-pii-verbatim", "settings.pii_verbatim", func(d map[string]any) { settings(d)["pii_verbatim"] = []string{"bad name"} }},
		{"another format", "invalid-snapshot", "format", func(d map[string]any) { d["format"] = 2 }},
		{"more entities than --max-entities", "invalid-snapshot", "entities", func(d map[string]any) {
			var ents []any
			for i := range 4 {
				ents = append(ents, entity(fmt.Sprintf("cus_x%d", i), "customer"))
			}
			d["entities"] = ents
		}},
		{"an object that is no resource", "invalid-snapshot", "entities[0].object", func(d map[string]any) {
			d["entities"] = []any{entity("zz_1", "zeppelin")}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(snap, &doc); err != nil {
				t.Fatal(err)
			}
			tc.edit(doc)
			b, _ := json.Marshal(doc)
			resp, body := do(t, base, call{method: "PUT", path: "/__wraith/session/bad/snapshot", json: string(b)})
			var e struct {
				Error struct{ Code, Message, Path string }
			}
			json.Unmarshal(body, &e)
			if resp.StatusCode != 400 || e.Error.Code != tc.code || e.Error.Path != tc.path || !strings.HasPrefix(e.Error.Message, tc.path) {
				t.Errorf("want 400 %s at %q, have %d %s", tc.code, tc.path, resp.StatusCode, body)
			}
			if srv.Engine().Store().Get("bad") != nil {
				t.Errorf("a refused snapshot was stored")
			}
		})
	}
}

func settings(doc map[string]any) map[string]any { return doc["settings"].(map[string]any) }

// snapshotOf takes a snapshot of session name and returns it as taken and
// decoded, for a test to doctor (re-encoding the decoded form sorts the
// bodies' keys).
func snapshotOf(tb testing.TB, base, name string) ([]byte, map[string]any) {
	tb.Helper()
	resp, snap := do(tb, base, call{path: "/__wraith/session/" + name + "/snapshot"})
	if resp.StatusCode != 200 {
		tb.Fatalf("snapshot %s: %d %s", name, resp.StatusCode, snap)
	}
	var doc map[string]any
	if err := json.Unmarshal(snap, &doc); err != nil {
		tb.Fatal(err)
	}
	return snap, doc
}

// copyDoc returns a deep copy of a decoded snapshot.
func copyDoc(tb testing.TB, doc map[string]any) map[string]any {
	tb.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// replayOf returns the remembered answer of key in a decoded snapshot.
func replayOf(doc map[string]any, key string) map[string]any {
	return doc["idempotency"].(map[string]any)[key].(map[string]any)
}

// entityOf returns the decoded snapshot's entity with id.
func entityOf(tb testing.TB, doc map[string]any, id string) map[string]any {
	tb.Helper()
	for _, e := range doc["entities"].([]any) {
		if e := e.(map[string]any); e["id"] == id {
			return e
		}
	}
	tb.Fatalf("the snapshot holds no entity %s", id)
	return nil
}

// TestRestoreRefusesDoctoredState: every value a snapshot's state carries
// is checked before any of it is used. Each doctored document is a 400
// invalid-snapshot whose message and "path" detail name the JSON path of
// the bad value; nothing is stored, and the twin still answers. The old
// code accepted 23 of these 27 (it refused the generator, the empty id,
// the duplicate and the negative clock, naming no path), and a replay
// status of 0, 1000 or -5 then panicked the handler on every replay of
// its key.
func TestRestoreRefusesDoctoredState(t *testing.T) {
	srv := startServer(t, "checkout")
	base := srv.URL()
	provisionDet(t, base, "src")
	fill(t, base, "src", 2)
	if resp, body := do(t, base, call{method: "POST", path: "/v1/customers", form: "description=idem", session: "src", header: map[string]string{"Idempotency-Key": "k1"}}); resp.StatusCode != 200 {
		t.Fatalf("create with a key: %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, base, call{method: "POST", path: "/v1/customers/cus_123", form: "description=changed", session: "src"}); resp.StatusCode != 200 {
		t.Fatalf("update cus_123: %d %s", resp.StatusCode, body)
	}
	// What a request may name, a session holds and a snapshot carries: a
	// key and an id beyond ASCII.
	if resp, body := do(t, base, call{method: "POST", path: "/v1/customers/cus_cl%C3%A9", form: "description=utf8", session: "src", header: map[string]string{"Idempotency-Key": "clé"}}); resp.StatusCode != 200 {
		t.Fatalf("update cus_clé: %d %s", resp.StatusCode, body)
	}
	// A delete of an id the twin never held leaves a tombstone of no
	// provenance: a snapshot holds it, and restores it.
	if resp, body := do(t, base, call{method: "DELETE", path: "/v1/customers/cus_never", session: "src"}); resp.StatusCode != 200 {
		t.Fatalf("delete cus_never: %d %s", resp.StatusCode, body)
	}
	raw, snap := snapshotOf(t, base, "src")
	created := replayOf(snap, "k1")["Body"].(string) // base64 of the create's answer
	var createdBody struct{ ID string }
	if err := json.Unmarshal([]byte(mustBase64(t, created)), &createdBody); err != nil {
		t.Fatal(err)
	}
	createdID := createdBody.ID
	at := map[string]int{}
	for i, e := range snap["entities"].([]any) {
		at[e.(map[string]any)["id"].(string)] = i
	}
	// Paths name entities by index: {old} is cus_123's, {new} the created
	// customer's, {end} one past the last.
	paths := strings.NewReplacer("{old}", fmt.Sprint(at["cus_123"]), "{new}", fmt.Sprint(at[createdID]), "{end}", fmt.Sprint(len(at)))
	long := strings.Repeat("k", 256)
	for i, tc := range []struct {
		name, path string
		edit       func(d map[string]any)
	}{
		{"replay status 0", `idempotency."k1".Status`, func(d map[string]any) { replayOf(d, "k1")["Status"] = 0 }},
		{"replay status 1000", `idempotency."k1".Status`, func(d map[string]any) { replayOf(d, "k1")["Status"] = 1000 }},
		{"replay status -5", `idempotency."k1".Status`, func(d map[string]any) { replayOf(d, "k1")["Status"] = -5 }},
		{"replay provenance invented", `idempotency."k1".Provenance`, func(d map[string]any) { replayOf(d, "k1")["Provenance"] = "made-up-0001" }},
		{"replay fingerprint not hex", `idempotency."k1".Fingerprint`, func(d map[string]any) { replayOf(d, "k1")["Fingerprint"] = "zz" }},
		{"replay null", `idempotency."k1"`, func(d map[string]any) { d["idempotency"].(map[string]any)["k1"] = nil }},
		{"idempotency key of 256 bytes", `idempotency."` + long + `"`, func(d map[string]any) {
			d["idempotency"].(map[string]any)[long] = copyDoc(t, replayOf(d, "k1"))
		}},
		{"idempotency key with a newline", `idempotency."a\nb"`, func(d map[string]any) {
			d["idempotency"].(map[string]any)["a\nb"] = copyDoc(t, replayOf(d, "k1"))
		}},
		{"entity body a string", "entities[{old}].body", func(d map[string]any) { entityOf(t, d, "cus_123")["body"] = "cus_123" }},
		{"entity body an array", "entities[{old}].body", func(d map[string]any) { entityOf(t, d, "cus_123")["body"] = []any{1, 2} }},
		{"entity body null", "entities[{old}].body", func(d map[string]any) { entityOf(t, d, "cus_123")["body"] = nil }},
		{"entity body of another id", "entities[{old}].body", func(d map[string]any) {
			entityOf(t, d, "cus_123")["body"].(map[string]any)["id"] = "cus_other"
		}},
		{"entity body of another object", "entities[{old}].body", func(d map[string]any) {
			entityOf(t, d, "cus_123")["body"].(map[string]any)["object"] = "charge"
		}},
		{"entity body without an id", "entities[{new}].body", func(d map[string]any) {
			delete(entityOf(t, d, createdID)["body"].(map[string]any), "id")
		}},
		{"entity provenance invented", "entities[{old}].provenance", func(d map[string]any) { entityOf(t, d, "cus_123")["provenance"] = "made-up" }},
		{"entity provenance of an answer", "entities[{old}].provenance", func(d map[string]any) { entityOf(t, d, "cus_123")["provenance"] = "miss" }},
		{"entity seq past the session's", "entities[{old}].seq", func(d map[string]any) { entityOf(t, d, "cus_123")["seq"] = 1 << 40 }},
		{"entity exchange with a newline", "entities[{old}].exchange", func(d map[string]any) { entityOf(t, d, "cus_123")["exchange"] = "a\r\nSet-Cookie: x" }},
		{"entity id empty", "entities[{old}].id", func(d map[string]any) { entityOf(t, d, "cus_123")["id"] = "" }},
		{"entity twice", "entities[{end}].id", func(d map[string]any) { d["entities"] = append(d["entities"].([]any), d["entities"].([]any)[0]) }},
		{"generator garbage", "generator", func(d map[string]any) { d["generator"] = "AAAA" }},
		{"seq below the start", "seq", func(d map[string]any) { d["seq"] = 5 }},
		{"counter negative", `counters."issue"`, func(d map[string]any) { d["counters"] = map[string]any{"issue": -1} }},
		{"rate window count negative", "rate_window_count", func(d map[string]any) { d["rate_window_count"] = -1 }},
		{"fault counter fired past matched", "fault_counts[0]", func(d map[string]any) {
			d["fault_counts"] = []any{map[string]any{"Matched": 1, "Fired": 2}}
		}},
		{"too many fault counters", "fault_counts", func(d map[string]any) {
			d["fault_counts"] = make([]any, 1025)
		}},
		{"clock position negative", "clock_pos_ns", func(d map[string]any) { d["clock_pos_ns"] = -1 }},
	} {
		tc.path = paths.Replace(tc.path)
		name := fmt.Sprintf("bad%d", i) // a session of its own: a case the old code stored leaves the others be
		t.Run(tc.name, func(t *testing.T) {
			doc := copyDoc(t, snap)
			tc.edit(doc)
			b, _ := json.Marshal(doc)
			resp, body := do(t, base, call{method: "PUT", path: "/__wraith/session/" + name + "/snapshot", json: string(b)})
			var e struct {
				Error struct {
					Code, Message, Path string
				}
			}
			json.Unmarshal(body, &e)
			if resp.StatusCode != 400 || e.Error.Code != "invalid-snapshot" || e.Error.Path != tc.path || !strings.HasPrefix(e.Error.Message, tc.path+": ") {
				t.Errorf("want 400 invalid-snapshot at %s, have %d %s", tc.path, resp.StatusCode, body)
			}
			if srv.Engine().Store().Get(name) != nil {
				t.Errorf("a refused snapshot was stored")
				// What the old code then did with it: a replay of the key,
				// which for a status outside 100-599 panicked the handler.
				if err := replayK1(base, name); err != nil {
					t.Errorf("replaying k1 in the stored session: %v", err)
				}
			}
		})
	}
	// The untouched document still restores, and its replay is the original's.
	if resp, body := do(t, base, call{method: "PUT", path: "/__wraith/session/good/snapshot", json: string(raw)}); resp.StatusCode != 201 {
		t.Fatalf("the snapshot as taken: want 201, have %d %s", resp.StatusCode, body)
	}
	resp, body := do(t, base, call{method: "POST", path: "/v1/customers", form: "description=idem", session: "good", header: map[string]string{"Idempotency-Key": "k1"}})
	if want := mustBase64(t, created); resp.StatusCode != 200 || string(body) != want || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay after restore: want 200 %s, have %d %s", want, resp.StatusCode, body)
	}
	for _, path := range []string{"/v1/customers/cus_never", "/v1/customers/cus_123", "/v1/customers/" + createdID, "/v1/customers/cus_cl%C3%A9"} {
		if want, have := answer(t, base, call{path: path, session: "src"}), answer(t, base, call{path: path, session: "good"}); want != have {
			t.Errorf("GET %s after restore:\nwant %s\nhave %s", path, want, have)
		}
	}
}

// replayK1 sends the request TestRestoreRefusesDoctoredState remembered
// under Idempotency-Key k1 in session name, and says whether an answer
// came back.
func replayK1(base, name string) error {
	req, err := http.NewRequest(http.MethodPost, base+"/v1/customers", strings.NewReader("description=idem"))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Wraith-Session", name)
	req.Header.Set("Idempotency-Key", "k1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func mustBase64(tb testing.TB, s string) string {
	tb.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestRestoreGitHubEntities: a GitHub-shaped twin keys an entity by an
// address built from its parents and its key field ("issue:o/r/1"), not by
// an id and an object type. A snapshot of such a session restores as
// taken and its entities take updates; a body whose key field or scope
// names another address than the entity's is refused (the old code took
// both, and then served the body under one number while it said another).
func TestRestoreGitHubEntities(t *testing.T) {
	srv := startServer(t, "testdata/twins/github-mini")
	base := srv.URL()
	provisionDet(t, base, "src")
	for _, c := range []call{
		{method: "POST", path: "/user/repos", json: `{"name":"hello"}`},
		{method: "POST", path: "/repos/octo/hello/issues", json: `{"title":"first"}`},
		{method: "POST", path: "/repos/octo/hello/issues", json: `{"title":"second"}`},
	} {
		c.session = "src"
		if resp, body := do(t, base, c); resp.StatusCode != 201 {
			t.Fatalf("%s %s: want 201, have %d %s", c.method, c.path, resp.StatusCode, body)
		}
	}
	raw, snap := snapshotOf(t, base, "src")
	issue := entityOf(t, snap, "issue:octo/hello/2")
	if resp, body := do(t, base, call{method: "PUT", path: "/__wraith/session/good/snapshot", json: string(raw)}); resp.StatusCode != 201 {
		t.Fatalf("the snapshot as taken: want 201, have %d %s", resp.StatusCode, body)
	}
	if want, have := answer(t, base, call{method: "PATCH", path: "/repos/octo/hello/issues/2", json: `{"state":"closed"}`, session: "src"}),
		answer(t, base, call{method: "PATCH", path: "/repos/octo/hello/issues/2", json: `{"state":"closed"}`, session: "good"}); want != have {
		t.Errorf("an update after restore:\nwant %s\nhave %s", want, have)
	}
	i := -1
	for n, e := range snap["entities"].([]any) {
		if e.(map[string]any)["id"] == "issue:octo/hello/2" {
			i = n
		}
	}
	path := fmt.Sprintf("entities[%d].body", i)
	for n, tc := range []struct {
		name string
		edit func(e map[string]any)
	}{
		{"another number", func(e map[string]any) { e["body"].(map[string]any)["number"] = 1 }},
		{"no number", func(e map[string]any) { delete(e["body"].(map[string]any), "number") }},
		{"another repository", func(e map[string]any) { e["scope"] = "octo/other" }},
		{"a scope of one parent", func(e map[string]any) { e["scope"] = "octo" }},
		{"a body that is an array", func(e map[string]any) { e["body"] = []any{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := copyDoc(t, snap)
			tc.edit(entityOf(t, doc, issue["id"].(string)))
			name := fmt.Sprintf("bad%d", n)
			resp, body := do(t, base, call{method: "PUT", path: "/__wraith/session/" + name + "/snapshot", json: mustJSON(t, doc)})
			if resp.StatusCode != 400 || errorCode(body) != "invalid-snapshot" || !strings.Contains(string(body), `"path":"`+path+`"`) {
				t.Errorf("want 400 invalid-snapshot at %s, have %d %s", path, resp.StatusCode, body)
			}
			if srv.Engine().Store().Get(name) != nil {
				t.Errorf("a refused snapshot was stored")
			}
		})
	}
}
