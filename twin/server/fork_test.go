package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/twin/prov"
)

func digestOf(tb testing.TB, base, name string) (string, int) {
	tb.Helper()
	resp, body := do(tb, base, call{path: "/__wraith/session/" + name + "/digest"})
	if resp.StatusCode != 200 {
		tb.Fatalf("digest %s: %d %s", name, resp.StatusCode, body)
	}
	var d struct {
		Digest   string `json:"digest"`
		Entities int    `json:"entities"`
	}
	json.Unmarshal(body, &d)
	return d.Digest, d.Entities
}

// TestDigestIgnoresHistory: two sessions reach the same world by
// different request orders (and one reads on the way); their digests are
// equal. One changed field changes the digest.
func TestDigestIgnoresHistory(t *testing.T) {
	srv := startServer(t, "checkout")
	base := srv.URL()
	for _, s := range []string{"a", "b", "c"} {
		provisionDet(t, base, s)
	}
	do(t, base, call{method: "POST", path: "/v1/customers/cus_123", form: "description=vip", session: "a"})
	do(t, base, call{method: "POST", path: "/v1/customers/cus_123", form: "metadata[tier]=gold", session: "a"})

	do(t, base, call{path: "/v1/customers?limit=3", session: "b"})
	do(t, base, call{method: "POST", path: "/v1/customers/cus_123", form: "metadata[tier]=gold", session: "b"})
	do(t, base, call{path: "/v1/customers/cus_123", session: "b"})
	do(t, base, call{method: "POST", path: "/v1/customers/cus_123", form: "description=vip", session: "b"})

	do(t, base, call{method: "POST", path: "/v1/customers/cus_123", form: "metadata[tier]=gold", session: "c"})
	do(t, base, call{method: "POST", path: "/v1/customers/cus_123", form: "description=VIP", session: "c"})

	da, na := digestOf(t, base, "a")
	db, _ := digestOf(t, base, "b")
	dc, _ := digestOf(t, base, "c")
	if !strings.HasPrefix(da, "sha256:") || na == 0 {
		t.Fatalf("digest: %s over %d entities", da, na)
	}
	if da != db {
		t.Errorf("same world by different orders: want equal digests, have %s and %s", da, db)
	}
	if da == dc {
		t.Errorf("one changed field (description vip/VIP) left the digest at %s", da)
	}

	resp, body := do(t, base, call{path: "/__wraith/session/a/diff"})
	var diff struct {
		Created []json.RawMessage `json:"created"`
		Updated []struct {
			ID     string         `json:"id"`
			Object string         `json:"object"`
			Before map[string]any `json:"before"`
			After  map[string]any `json:"after"`
		} `json:"updated"`
		Deleted []struct{ ID, Object string } `json:"deleted"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &diff) != nil {
		t.Fatalf("diff: %d %s", resp.StatusCode, body)
	}
	if len(diff.Created) != 0 || len(diff.Deleted) != 0 || len(diff.Updated) != 1 || diff.Updated[0].ID != "cus_123" ||
		diff.Updated[0].Object != "customer" || diff.Updated[0].After["description"] != "vip" || diff.Updated[0].Before["description"] == "vip" {
		t.Errorf("diff of a: %s", body)
	}
	do(t, base, call{method: "POST", path: "/v1/customers", form: "description=new", session: "a"})
	do(t, base, call{method: "DELETE", path: "/v1/customers/cus_123", session: "a"})
	_, body = do(t, base, call{path: "/__wraith/session/a/diff"})
	json.Unmarshal(body, &diff)
	if len(diff.Created) != 1 || len(diff.Updated) != 0 || len(diff.Deleted) != 1 || diff.Deleted[0].ID != "cus_123" {
		t.Errorf("diff after a create and a delete: %s", body)
	}
	do(t, base, call{method: "POST", path: "/__wraith/session/a/reset"})
	_, body = do(t, base, call{path: "/__wraith/session/a/diff"})
	if string(body) != `{"session":"a","created":[],"updated":[],"deleted":[]}`+"\n" {
		t.Errorf("diff after reset: %s", body)
	}
	if resp, _ := do(t, base, call{path: "/__wraith/session/zz/digest"}); resp.StatusCode != 404 {
		t.Errorf("digest of an absent session: want 404, have %d", resp.StatusCode)
	}
}

// fill creates n customers in a session.
func fill(tb testing.TB, base, name string, n int) {
	tb.Helper()
	client := &http.Client{}
	for i := 0; i < n; i++ {
		req, _ := http.NewRequest("POST", base+"/v1/customers", strings.NewReader(fmt.Sprintf("description=c%d&metadata[i]=%d", i, i)))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Wraith-Session", name)
		resp, err := client.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			tb.Fatalf("create %d: %d", i, resp.StatusCode)
		}
	}
}

// answer is what must be byte-identical between two copies of a world.
func answer(tb testing.TB, base string, c call) string {
	tb.Helper()
	resp, body := do(tb, base, c)
	return fmt.Sprintf("%d %s %s %s\n%s", resp.StatusCode, resp.Header.Get("X-Wraith-Provenance"), resp.Header.Get("X-Wraith-Route"), resp.Header.Get("Idempotent-Replayed"), body)
}

// TestForkTenThousand forks a session of 10,000 created entities; the
// same 50 requests to both copies get byte-identical answers, and a write
// to one changes neither the other's digest nor its bytes.
func TestForkTenThousand(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 500
	}
	srv := startServer(t, "checkout", "--max-entities", "20000")
	base := srv.URL()
	provisionDet(t, base, "src")
	fill(t, base, "src", n)
	do(t, base, call{method: "POST", path: "/v1/customers", form: "description=idem", session: "src", header: map[string]string{"Idempotency-Key": "k1"}})

	resp, body := do(t, base, call{method: "POST", path: "/__wraith/session/src/fork", json: `{"session":"dst"}`})
	if resp.StatusCode != 201 {
		t.Fatalf("fork: %d %s", resp.StatusCode, body)
	}
	var forked struct {
		Session, From string
		Entities      int
	}
	json.Unmarshal(body, &forked)
	srcDigest, srcN := digestOf(t, base, "src")
	if forked.Session != "dst" || forked.From != "src" || forked.Entities != srcN || srcN < n {
		t.Errorf("fork answer %s; source holds %d", body, srcN)
	}
	if d, _ := digestOf(t, base, "dst"); d != srcDigest {
		t.Fatalf("fork digest %s, source %s", d, srcDigest)
	}
	if j := getJournal(t, base, "dst", ""); len(j.Entries) != 0 {
		t.Errorf("a fork's journal starts empty, has %d", len(j.Entries))
	}
	if resp, _ := do(t, base, call{method: "POST", path: "/__wraith/session/src/fork", json: `{"session":"dst"}`}); resp.StatusCode != 409 {
		t.Errorf("fork onto an existing session: want 409, have %d", resp.StatusCode)
	}

	var reqs []call
	for i := 0; i < 50; i++ {
		switch i % 5 {
		case 0:
			reqs = append(reqs, call{method: "POST", path: "/v1/customers", form: fmt.Sprintf("description=after%d", i)})
		case 1:
			reqs = append(reqs, call{path: "/v1/customers?limit=3"})
		case 2:
			reqs = append(reqs, call{method: "POST", path: "/v1/customers", form: "description=idem", header: map[string]string{"Idempotency-Key": "k1"}})
		case 3:
			reqs = append(reqs, call{path: "/v1/customers/cus_123"})
		case 4:
			reqs = append(reqs, call{method: "POST", path: "/v1/payment_intents", form: "amount=100&currency=usd"})
		}
	}
	for i, c := range reqs {
		a, b := c, c
		a.session, b.session = "src", "dst"
		if ha, hb := answer(t, base, a), answer(t, base, b); ha != hb {
			t.Fatalf("request %d (%s %s): the copies answer differently:\nsrc %s\ndst %s", i, c.method, c.path, ha, hb)
		}
	}

	srcDigest, _ = digestOf(t, base, "src")
	read := call{path: "/v1/customers?limit=5", session: "src"}
	before := answer(t, base, read)
	do(t, base, call{method: "POST", path: "/v1/customers/cus_123", form: "description=only-in-dst", session: "dst"})
	if d, _ := digestOf(t, base, "src"); d != srcDigest {
		t.Errorf("a write to the fork changed the source's digest")
	}
	if d, _ := digestOf(t, base, "dst"); d == srcDigest {
		t.Errorf("the fork's write did not change its own digest")
	}
	if after := answer(t, base, read); after != before {
		t.Errorf("a write to the fork changed the source's answer")
	}
	if have := answer(t, base, call{path: "/v1/customers/cus_123", session: "src"}); strings.Contains(have, "only-in-dst") {
		t.Errorf("the source sees the fork's write: %s", have)
	}
}

// TestSnapshotIntoFreshProcess takes a snapshot from one twin process and
// restores it into a fresh one: same digest, same next ids and bytes.
func TestSnapshotIntoFreshProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wraith-twin")
	}
	bin := bins.Path(t, "./cmd/wraith-twin")
	one := testbin.StartTwin(t, bin, "checkout", "--port", "0")
	provisionDet(t, one.URL, "s1")
	fill(t, one.URL, "s1", 20)
	do(t, one.URL, call{method: "DELETE", path: "/v1/customers/cus_123", session: "s1"})
	do(t, one.URL, call{method: "POST", path: "/v1/customers", form: "description=idem", session: "s1", header: map[string]string{"Idempotency-Key": "k"}})
	resp, snap := do(t, one.URL, call{path: "/__wraith/session/s1/snapshot"})
	if resp.StatusCode != 200 || !bytes.Contains(snap, []byte(`"format":1`)) {
		t.Fatalf("snapshot: %d %.200s", resp.StatusCode, snap)
	}
	wantDigest, wantN := digestOf(t, one.URL, "s1")

	two := testbin.StartTwin(t, bin, "checkout", "--port", "0")
	resp, body := do(t, two.URL, call{method: "PUT", path: "/__wraith/session/s1/snapshot", json: string(snap)})
	if resp.StatusCode != 201 {
		t.Fatalf("restore: %d %s", resp.StatusCode, body)
	}
	if d, n := digestOf(t, two.URL, "s1"); d != wantDigest || n != wantN {
		t.Errorf("restored digest %s over %d, want %s over %d", d, n, wantDigest, wantN)
	}
	for _, c := range []call{
		{method: "POST", path: "/v1/customers", form: "description=next"},
		{method: "POST", path: "/v1/customers", form: "description=idem", header: map[string]string{"Idempotency-Key": "k"}},
		{path: "/v1/customers/cus_123"},
		{path: "/v1/customers?limit=4"},
	} {
		c.session = "s1"
		if a, b := answer(t, one.URL, c), answer(t, two.URL, c); a != b {
			t.Errorf("%s %s after restore:\noriginal %s\nrestored %s", c.method, c.path, a, b)
		}
	}
	if resp, _ := do(t, two.URL, call{method: "PUT", path: "/__wraith/session/s1/snapshot", json: string(snap)}); resp.StatusCode != 409 {
		t.Errorf("restore onto an existing session: want 409, have %d", resp.StatusCode)
	}
	other := bytes.Replace(snap, []byte(`"twin_digest":"sha256:`), []byte(`"twin_digest":"sha256:0`), 1)
	if resp, body := do(t, two.URL, call{method: "PUT", path: "/__wraith/session/s2/snapshot", json: string(other)}); resp.StatusCode != 400 || !bytes.Contains(body, []byte("snapshot-twin-mismatch")) {
		t.Errorf("restore of another twin's snapshot: want 400 snapshot-twin-mismatch, have %d %s", resp.StatusCode, body)
	}
}

// TestCoverageListsUnknownRoutes: after a run that hits three unknown
// routes, coverage lists exactly those, with counts and sessions.
func TestCoverageListsUnknownRoutes(t *testing.T) {
	srv := startServer(t, "checkout")
	base := srv.URL()
	do(t, base, call{path: "/v1/customers/cus_123", session: "a"})
	do(t, base, call{method: "POST", path: "/v1/customers", form: "description=x", session: "a"})
	for i := 0; i < 3; i++ {
		do(t, base, call{path: "/v1/teleporters", session: "a"})
	}
	do(t, base, call{path: "/v1/teleporters", session: "b"})
	do(t, base, call{method: "POST", path: "/v1/wormholes", session: "b"})
	do(t, base, call{method: "POST", path: "/v1/wormholes", session: "b"})
	do(t, base, call{method: "DELETE", path: "/v1/balance", session: "c"})

	resp, body := do(t, base, call{path: "/__wraith/coverage"})
	if resp.StatusCode != 200 {
		t.Fatalf("coverage: %d %s", resp.StatusCode, body)
	}
	var rep struct {
		Routes []struct {
			Method, Route string
			Hits          map[string]int64
		} `json:"routes"`
		Misses []struct {
			Method, Path    string
			Count           int64
			Sessions        []string
			FirstAt, LastAt string `json:"-"`
		} `json:"misses"`
	}
	json.Unmarshal(body, &rep)
	var have []string
	for _, m := range rep.Misses {
		have = append(have, fmt.Sprintf("%s %s %d %s", m.Method, m.Path, m.Count, strings.Join(m.Sessions, ",")))
	}
	want := []string{"GET /v1/teleporters 4 a,b", "POST /v1/wormholes 2 b", "DELETE /v1/balance 1 c"}
	if strings.Join(have, "\n") != strings.Join(want, "\n") {
		t.Errorf("misses:\nwant\n%s\nhave\n%s", strings.Join(want, "\n"), strings.Join(have, "\n"))
	}
	hits := map[string]map[string]int64{}
	for _, r := range rep.Routes {
		hits[r.Method+" "+r.Route] = r.Hits
	}
	if hits["GET /v1/customers/{id}"]["recorded"] != 1 || hits["POST /v1/customers"]["handler"] != 1 {
		t.Errorf("route hits: %v", hits)
	}
	if !bytes.Contains(body, []byte(`"first_at":"2026-11-01T12:00:00Z"`)) {
		t.Errorf("misses carry first_at and last_at on the wall clock: %s", body)
	}
}

// TestMetricsParse reads /__wraith/metrics with the Prometheus text
// parser and checks the families and a few values.
func TestMetricsParse(t *testing.T) {
	srv := startServer(t, "checkout")
	base := srv.URL()
	do(t, base, call{path: "/v1/customers/cus_123", session: "m1"})
	do(t, base, call{path: "/v1/customers/cus_123", session: "m2"})
	do(t, base, call{method: "POST", path: "/v1/customers", form: "description=x", session: "m2"})
	do(t, base, call{path: "/v1/nowhere", session: "m2"})
	resp, body := do(t, base, call{path: "/__wraith/metrics"})
	if resp.StatusCode != 200 {
		t.Fatalf("metrics: %d %s", resp.StatusCode, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the Prometheus text parser refused the metrics: %v\n%s", err, body)
	}
	for _, name := range []string{"wraith_requests_total", "wraith_request_duration_seconds", "wraith_sessions", "wraith_entities"} {
		if fams[name] == nil {
			t.Errorf("no metric family %s", name)
		}
	}
	count := func(prov, route, status string) float64 {
		for _, m := range fams["wraith_requests_total"].GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["provenance"] == prov && l["route"] == route && l["status"] == status {
				return m.GetCounter().GetValue()
			}
		}
		return 0
	}
	if c := count("recorded", "GET /v1/customers/{id}", "200"); c != 2 {
		t.Errorf("recorded reads: want 2, have %v", c)
	}
	if c := count("miss", "none", "501"); c != 1 {
		t.Errorf("route misses: want 1, have %v", c)
	}
	if v := fams["wraith_sessions"].GetMetric()[0].GetGauge().GetValue(); v != 2 {
		t.Errorf("sessions: want 2, have %v", v)
	}
	if h := fams["wraith_request_duration_seconds"].GetMetric(); len(h) == 0 || h[0].GetHistogram().GetSampleCount() == 0 {
		t.Errorf("latency histogram has no samples")
	}
}

// TestRestoreLeavesNoInventedLabels: the metrics' labels come from closed
// sets. A snapshot whose remembered answers carry invented provenances is
// refused; whatever requests follow, /__wraith/metrics holds no label
// value outside the provenances, the twin's routes ("none" and "other"
// beside them) and three-digit statuses, before and after the sessions
// are deleted. The old code restored each such snapshot and made every
// invented provenance a label of its own, kept after the delete.
func TestRestoreLeavesNoInventedLabels(t *testing.T) {
	srv := startServer(t, "checkout")
	base := srv.URL()
	provisionDet(t, base, "src")
	idem := call{method: "POST", path: "/v1/customers", form: "description=idem", header: map[string]string{"Idempotency-Key": "k1"}}
	idem.session = "src"
	do(t, base, idem)
	resp, snap := do(t, base, call{path: "/__wraith/session/src/snapshot"})
	if resp.StatusCode != 200 {
		t.Fatalf("snapshot: %d %s", resp.StatusCode, snap)
	}
	const n = 20
	for i := range n {
		name := fmt.Sprintf("r%d", i)
		doc := bytes.Replace(snap, []byte(`"Provenance":"handler"`), []byte(fmt.Sprintf(`"Provenance":"invented-%d"`, i)), 1)
		if bytes.Equal(doc, snap) {
			t.Fatalf("the snapshot remembers no handler answer: %s", snap)
		}
		if resp, body := do(t, base, call{method: "PUT", path: "/__wraith/session/" + name + "/snapshot", json: string(doc)}); resp.StatusCode != 400 {
			t.Errorf("restore %s with an invented provenance: want 400, have %d %s", name, resp.StatusCode, body)
		}
		idem.session = name
		do(t, base, idem) // replays the key where the restore was taken
	}
	// Requests that name no route, with odd methods, beside them.
	do(t, base, call{method: "PROPFIND", path: "/v1/invented/route", session: "src"})
	do(t, base, call{path: "/v1/customers/cus_123/%2e%2e/x", session: "src"})

	routes := map[string]bool{"none": true, "other": true}
	for _, r := range srv.Engine().Routes() {
		routes[r] = true
	}
	check := func(when string) {
		t.Helper()
		resp, body := do(t, base, call{path: "/__wraith/metrics"})
		if resp.StatusCode != 200 {
			t.Fatalf("metrics: %d %s", resp.StatusCode, body)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("metrics do not parse: %v", err)
		}
		series := 0
		for _, fam := range []string{"wraith_requests_total", "wraith_request_duration_seconds"} {
			for _, m := range fams[fam].GetMetric() {
				series++
				for _, l := range m.GetLabel() {
					v := l.GetValue()
					var ok bool
					switch l.GetName() {
					case "provenance":
						ok = v == "other" || slices.Contains(prov.All[:], v)
					case "route":
						ok = routes[v]
					case "status":
						ok = len(v) == 3 && v >= "100" && v <= "599"
					}
					if !ok {
						t.Errorf("%s: %s has label %s=%q, outside its closed set", when, fam, l.GetName(), v)
					}
				}
			}
		}
		if series == 0 {
			t.Errorf("%s: no request series at all", when)
		}
	}
	check("after the restores")
	for i := range n {
		do(t, base, call{method: "DELETE", path: fmt.Sprintf("/__wraith/session/r%d", i)})
	}
	check("after the sessions are deleted")
}
