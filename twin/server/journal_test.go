package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// provisionDet provisions name with a deterministic clock at 1700000000.
func provisionDet(tb testing.TB, base, name string) {
	tb.Helper()
	resp, body := do(tb, base, call{method: "POST", path: "/__wraith/session", json: `{"session":"` + name + `","seed":7,"clock":{"mode":"deterministic","base_epoch":1700000000}}`})
	if resp.StatusCode != 201 {
		tb.Fatalf("provision %s: %d %s", name, resp.StatusCode, body)
	}
}

type journalDoc struct {
	Session string `json:"session"`
	Entries []struct {
		Index      int64   `json:"index"`
		At         string  `json:"at"`
		Method     string  `json:"method"`
		Path       string  `json:"path"`
		Route      string  `json:"route"`
		Status     int     `json:"status"`
		Provenance string  `json:"provenance"`
		Exchange   string  `json:"exchange"`
		LatencyMS  float64 `json:"latency_ms"`
	} `json:"entries"`
	Dropped   int64  `json:"dropped"`
	NextAfter *int64 `json:"next_after"`
}

func getJournal(tb testing.TB, base, name, query string) journalDoc {
	tb.Helper()
	resp, body := do(tb, base, call{path: "/__wraith/session/" + name + "/journal" + query})
	if resp.StatusCode != 200 {
		tb.Fatalf("journal %s%s: %d %s", name, query, resp.StatusCode, body)
	}
	var j journalDoc
	if err := json.Unmarshal(body, &j); err != nil {
		tb.Fatalf("journal: %v: %s", err, body)
	}
	return j
}

// agentRun is an agent-like sequence: look around, create, read back,
// update, stumble on a route the twin lacks, delete, read after delete.
func agentRun(tb testing.TB, base, name string) []string {
	tb.Helper()
	var want []string
	step := func(c call, route string) {
		c.session = name
		resp, _ := do(tb, base, c)
		method := c.method
		if method == "" {
			method = "GET"
		}
		want = append(want, fmt.Sprintf("%s %s|%s|%d|%s", method, strings.SplitN(c.path, "?", 2)[0], route, resp.StatusCode, resp.Header.Get("X-Wraith-Provenance")))
	}
	step(call{path: "/v1/customers/cus_123"}, "GET /v1/customers/{id}")
	step(call{method: "POST", path: "/v1/customers", form: "email=agent%40example.com", header: map[string]string{"Authorization": "Bearer sk_test_SECRETSECRET"}}, "POST /v1/customers")
	resp, body := do(tb, base, call{path: "/v1/customers?limit=1", session: name})
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	json.Unmarshal(body, &list)
	want = append(want, fmt.Sprintf("GET /v1/customers|GET /v1/customers|%d|%s", resp.StatusCode, resp.Header.Get("X-Wraith-Provenance")))
	id := list.Data[0].ID
	step(call{path: "/v1/customers/" + id}, "GET /v1/customers/{id}")
	step(call{method: "POST", path: "/v1/customers/" + id, form: "description=vip"}, "POST /v1/customers/{id}")
	step(call{path: "/v1/teleporters/tp_1"}, "")
	step(call{method: "DELETE", path: "/v1/customers/" + id}, "DELETE /v1/customers/{id}")
	step(call{path: "/v1/customers/" + id}, "GET /v1/customers/{id}")
	return want
}

// TestJournalReproducesAgentRun drives an agent-like sequence and checks
// the journal lists it exactly: order, routes, statuses, provenance; and
// that at follows the deterministic clock.
func TestJournalReproducesAgentRun(t *testing.T) {
	srv := startServer(t, "checkout", "--unknown-entity", "not_found")
	provisionDet(t, srv.URL(), "j1")
	want := agentRun(t, srv.URL(), "j1")
	j := getJournal(t, srv.URL(), "j1", "")
	var have []string
	for i, e := range j.Entries {
		have = append(have, fmt.Sprintf("%s %s|%s|%d|%s", e.Method, e.Path, e.Route, e.Status, e.Provenance))
		if e.Index != int64(i) {
			t.Errorf("entry %d has index %d", i, e.Index)
		}
	}
	if strings.Join(have, "\n") != strings.Join(want, "\n") {
		t.Fatalf("journal:\nwant\n%s\nhave\n%s", strings.Join(want, "\n"), strings.Join(have, "\n"))
	}
	if j.Entries[0].At != "2023-11-14T22:13:20Z" || j.Entries[1].At != "2023-11-14T22:13:21Z" {
		t.Errorf("at: want the session clock from 1700000000 by 1s, have %s, %s", j.Entries[0].At, j.Entries[1].At)
	}
	if j.Entries[0].Exchange == "" || j.Entries[0].Provenance != "recorded" {
		t.Errorf("a recorded answer names its exchange: %+v", j.Entries[0])
	}
	if j.Dropped != 0 || j.NextAfter == nil || *j.NextAfter != int64(len(want)-1) {
		t.Errorf("dropped %d next_after %v", j.Dropped, j.NextAfter)
	}

	page := getJournal(t, srv.URL(), "j1", "?limit=2&after=1")
	if len(page.Entries) != 2 || page.Entries[0].Index != 2 || *page.NextAfter != 3 {
		t.Errorf("limit=2&after=1: want entries 2 and 3, have %+v", page.Entries)
	}
	posts := getJournal(t, srv.URL(), "j1", "?method=POST")
	if len(posts.Entries) != 2 {
		t.Errorf("method=POST: want 2 entries, have %d", len(posts.Entries))
	}
	misses := getJournal(t, srv.URL(), "j1", "?provenance=miss")
	if len(misses.Entries) != 1 || misses.Entries[0].Path != "/v1/teleporters/tp_1" {
		t.Errorf("provenance=miss: want the teleporter, have %+v", misses.Entries)
	}
	byRoute := getJournal(t, srv.URL(), "j1", "?route="+strings.ReplaceAll("GET /v1/customers/{id}", " ", "%20"))
	if len(byRoute.Entries) != 3 {
		t.Errorf("route filter: want 3 reads, have %d", len(byRoute.Entries))
	}

	for _, bad := range []string{"?limit=0", "?limit=x", "?after=-5", "?format=xml", "?colour=red"} {
		if resp, body := do(t, srv.URL(), call{path: "/__wraith/session/j1/journal" + bad}); resp.StatusCode != 400 {
			t.Errorf("journal%s: want 400, have %d %s", bad, resp.StatusCode, body)
		}
	}
	if resp, _ := do(t, srv.URL(), call{path: "/__wraith/session/nobody/journal"}); resp.StatusCode != 404 {
		t.Errorf("journal of an absent session: want 404, have %d", resp.StatusCode)
	}
	if s := sessionSummary(t, srv.URL(), "nobody"); s != nil {
		t.Errorf("reading a journal created session nobody")
	}

	do(t, srv.URL(), call{method: "POST", path: "/__wraith/session/j1/reset"})
	if after := getJournal(t, srv.URL(), "j1", ""); len(after.Entries) != 0 {
		t.Errorf("reset left %d journal entries", len(after.Entries))
	}
}

// TestJournalLimit keeps the newest --journal-limit entries and counts
// the dropped ones.
func TestJournalLimit(t *testing.T) {
	srv := startServer(t, "checkout", "--journal-limit", "3")
	for i := 0; i < 5; i++ {
		do(t, srv.URL(), call{path: fmt.Sprintf("/v1/customers/cus_%d", i), session: "lim"})
	}
	j := getJournal(t, srv.URL(), "lim", "")
	if len(j.Entries) != 3 || j.Dropped != 2 || j.Entries[0].Index != 2 || j.Entries[2].Path != "/v1/customers/cus_4" {
		t.Errorf("want entries 2..4 and 2 dropped, have %+v dropped %d", j.Entries, j.Dropped)
	}
}

// harRequired lists HAR 1.2's required fields per object (the W3C draft
// that Chrome DevTools imports).
var harRequired = map[string][]string{
	"log":      {"version", "creator", "entries"},
	"creator":  {"name", "version"},
	"entry":    {"startedDateTime", "time", "request", "response", "cache", "timings"},
	"request":  {"method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"},
	"response": {"status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"},
	"content":  {"size", "mimeType"},
	"timings":  {"send", "wait", "receive"},
	"_wraith":  {"session", "index", "route", "provenance"},
	"postData": {"mimeType", "params", "text"},
}

func requireFields(tb testing.TB, what string, m map[string]any) {
	tb.Helper()
	for _, f := range harRequired[what] {
		if _, ok := m[f]; !ok {
			tb.Errorf("HAR %s lacks %q: %v", what, f, m)
		}
	}
}

func harOf(tb testing.TB, base, name string) []byte {
	tb.Helper()
	resp, body := do(tb, base, call{path: "/__wraith/session/" + name + "/journal?format=har"})
	if resp.StatusCode != 200 {
		tb.Fatalf("HAR: %d %s", resp.StatusCode, body)
	}
	return body
}

// TestHARFields checks the HAR export against HAR 1.2's required fields
// and SPEC's extras, and that no credential reaches it.
func TestHARFields(t *testing.T) {
	srv := startServer(t, "checkout", "--unknown-entity", "not_found")
	provisionDet(t, srv.URL(), "h1")
	want := agentRun(t, srv.URL(), "h1")
	// Credentials in the query and in JSON (at any depth) and form bodies.
	for _, c := range []call{
		{path: "/v1/customers?limit=1&api_key=SECRETQUERY"},
		{method: "POST", path: "/v1/customers", json: `{"description":"d","password":"hunter2-SECRETJSON","metadata":{"refresh_token":"SECRETDEEP"},"list":[{"api_key":{"v":"SECRETOBJ"}}]}`},
		{method: "POST", path: "/v1/customers", form: "description=d&password=SECRETFORM"},
	} {
		c.session = "h1"
		resp, _ := do(t, srv.URL(), c)
		want = append(want, fmt.Sprintf("%s %s||%d|%s", c.method, c.path, resp.StatusCode, resp.Header.Get("X-Wraith-Provenance")))
	}
	body := harOf(t, srv.URL(), "h1")
	for _, secret := range []string{"SECRETSECRET", "SECRETQUERY", "SECRETJSON", "SECRETDEEP", "SECRETOBJ", "SECRETFORM"} {
		if bytes.Contains(body, []byte(secret)) {
			t.Errorf("the HAR holds the agent's credential %s", secret)
		}
	}
	for _, shown := range []string{`?limit=1\u0026api_key=%5Bredacted%5D"`, `"password\":\"[redacted]\"`, `\"description\":\"d\"`} {
		if !bytes.Contains(body, []byte(shown)) {
			t.Errorf("the HAR lacks %s (the rest of the request is kept, credentials redacted)", shown)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	log := doc["log"].(map[string]any)
	requireFields(t, "log", log)
	requireFields(t, "creator", log["creator"].(map[string]any))
	if log["version"] != "1.2" || log["creator"].(map[string]any)["name"] != "wraith" {
		t.Errorf("log: %v %v", log["version"], log["creator"])
	}
	entries := log["entries"].([]any)
	if len(entries) != len(want) {
		t.Fatalf("want %d entries, have %d", len(want), len(entries))
	}
	sawPost, sawAuth := false, false
	for i, raw := range entries {
		e := raw.(map[string]any)
		requireFields(t, "entry", e)
		req, resp := e["request"].(map[string]any), e["response"].(map[string]any)
		requireFields(t, "request", req)
		requireFields(t, "response", resp)
		requireFields(t, "content", resp["content"].(map[string]any))
		requireFields(t, "timings", e["timings"].(map[string]any))
		requireFields(t, "_wraith", e["_wraith"].(map[string]any))
		if req["headersSize"] != -1.0 || resp["headersSize"] != -1.0 {
			t.Errorf("entry %d: unknown header sizes must be -1", i)
		}
		if pd, ok := req["postData"].(map[string]any); ok {
			requireFields(t, "postData", pd)
			sawPost = true
		}
		for _, h := range req["headers"].([]any) {
			if hv := h.(map[string]any); hv["name"] == "Authorization" {
				sawAuth = true
				if hv["value"] != "Bearer [redacted]" {
					t.Errorf("Authorization in the HAR: %v", hv["value"])
				}
			}
		}
		w := e["_wraith"].(map[string]any)
		if w["index"] != float64(i) || w["session"] != "h1" {
			t.Errorf("entry %d _wraith: %v", i, w)
		}
		if fields := strings.Split(want[i], "|"); resp["status"] != mustFloat(fields[2]) || w["provenance"] != fields[3] {
			t.Errorf("entry %d: want %s, have status %v provenance %v", i, want[i], resp["status"], w["provenance"])
		}
		if i == 0 {
			content := resp["content"].(map[string]any)
			if !strings.Contains(content["text"].(string), `"id":"cus_123"`) || w["exchange"] == nil {
				t.Errorf("recorded entry: content %v, _wraith %v", content, w)
			}
			if hs := resp["headers"].([]any); len(hs) == 0 {
				t.Errorf("recorded entry has no response headers")
			}
		}
	}
	if !sawPost || !sawAuth {
		t.Errorf("want a postData and a redacted Authorization header: post %v auth %v", sawPost, sawAuth)
	}
}

func mustFloat(s string) float64 {
	var f float64
	fmt.Sscan(s, &f)
	return f
}

// TestHARValidates loads the HAR with har-validator (npm), a HAR 1.2
// schema validator Wraith did not write.
func TestHARValidates(t *testing.T) {
	dir := needNode(t)
	srv := startServer(t, "checkout", "--unknown-entity", "not_found")
	provisionDet(t, srv.URL(), "h2")
	want := agentRun(t, srv.URL(), "h2")
	cmd := exec.Command("node", filepath.Join(dir, "har_validate.js"))
	cmd.Stdin = bytes.NewReader(harOf(t, srv.URL(), "h2"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("har-validator refused the HAR: %v\n%s", err, stderr.String())
	}
	var res struct {
		Valid   bool `json:"valid"`
		Entries int  `json:"entries"`
	}
	if json.Unmarshal(out, &res) != nil || !res.Valid || res.Entries != len(want) {
		t.Errorf("har-validator: %s", out)
	}
}

// TestObserveEndpointsAreGuarded: the endpoints of SPEC §9 are control
// calls: with a token they need it, and on loopback a foreign Host or
// Origin is refused.
func TestObserveEndpointsAreGuarded(t *testing.T) {
	srv, err := openWith(t, map[string]string{"TOK": "s3cret-token"}, nil, "--control-token-env", "TOK")
	if err != nil {
		t.Fatal(err)
	}
	serveWith(t, srv)
	base := srv.URL()
	do(t, base, call{path: "/v1/customers/cus_123", session: "g"})
	paths := []call{
		{path: "/__wraith/session/g/journal"}, {path: "/__wraith/session/g/journal?format=har"},
		{path: "/__wraith/session/g/digest"}, {path: "/__wraith/session/g/diff"},
		{method: "POST", path: "/__wraith/session/g/fork", json: `{"session":"g2"}`},
		{path: "/__wraith/session/g/snapshot"}, {method: "PUT", path: "/__wraith/session/g3/snapshot", json: `{}`},
		{path: "/__wraith/coverage"}, {path: "/__wraith/metrics"},
	}
	for _, c := range paths {
		if resp, body := do(t, base, c); resp.StatusCode != 401 {
			t.Errorf("%s %s without the token: want 401, have %d %s", c.method, c.path, resp.StatusCode, body)
		}
		c.header = map[string]string{"Authorization": "Bearer s3cret-token"}
		if resp, body := do(t, base, c); resp.StatusCode == 401 || resp.StatusCode == 403 {
			t.Errorf("%s %s with the token: %d %s", c.method, c.path, resp.StatusCode, body)
		}
		c.header["Origin"] = "http://evil.example"
		if resp, _ := do(t, base, c); resp.StatusCode != 403 {
			t.Errorf("%s %s from a foreign Origin: want 403, have %d", c.method, c.path, resp.StatusCode)
		}
	}
}
