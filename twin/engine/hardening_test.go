package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/session"
)

// httpTwin serves e on 127.0.0.1:0 and returns its URL.
func httpTwin(tb testing.TB, h http.Handler) string {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL
}

type reply struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

func send(tb testing.TB, ctx context.Context, method, url, ctype, body string, header map[string][]string) reply {
	tb.Helper()
	r, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	for k, v := range header {
		r.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	rep := reply{status: resp.StatusCode, header: resp.Header, body: b}
	json.Unmarshal(b, &rep.json)
	return rep
}

const formType = "application/x-www-form-urlencoded"

func sessionHeader(name string) map[string][]string {
	return map[string][]string{"X-Wraith-Session": {name}}
}

func metadataForm(n int, value string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte('&')
		}
		fmt.Fprintf(&b, "metadata[key_%d]=%s", i, value)
	}
	return b.String()
}

func createCustomer(tb testing.TB, url, sess string) string {
	tb.Helper()
	rep := send(tb, context.Background(), "POST", url+"/v1/customers", formType, "description=x", sessionHeader(sess))
	if rep.status != http.StatusOK {
		tb.Fatalf("create: want 200, have %d %s", rep.status, rep.body)
	}
	return rep.json["id"].(string)
}

// TestMetadataMergeIsLinear: 80k metadata keys set and then cleared in one
// request each. With a linear search per key this took 35 s and held the
// session; the bound is generous, the figures are in BenchmarkMergeMetadata.
func TestMetadataMergeIsLinear(t *testing.T) {
	url := httpTwin(t, newCheckout(t, Options{}))
	id := createCustomer(t, url, "m")
	const n = 80000
	start := time.Now()
	rep := send(t, context.Background(), "POST", url+"/v1/customers/"+id, formType, metadataForm(n, "v"), sessionHeader("m"))
	if rep.status != http.StatusOK {
		t.Fatalf("update with %d metadata keys: want 200, have %d %.300s", n, rep.status, rep.body)
	}
	if md, _ := rep.json["metadata"].(map[string]any); len(md) != n {
		t.Fatalf("want %d metadata keys, have %d", n, len(md))
	}
	rep = send(t, context.Background(), "POST", url+"/v1/customers/"+id, formType, metadataForm(n, ""), sessionHeader("m"))
	if md, _ := rep.json["metadata"].(map[string]any); rep.status != http.StatusOK || len(md) != 0 {
		t.Fatalf("clearing %d keys: want 200 and no keys, have %d and %d keys", n, rep.status, len(md))
	}
	// The speed itself is BenchmarkMergeMetadata's to show (about 0.1 s for
	// 80k keys). This bound only catches a return to per-key search, which
	// took 35 s for one such request without the race detector: it is far
	// enough from both that a busy CI machine cannot make it flake.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("setting and clearing %d metadata keys took %v: merging is no longer linear in the key count (see BenchmarkMergeMetadata)", n, d)
	}
}

// BenchmarkMergeMetadata merges n metadata keys into a customer: time per
// key must stay flat as n doubles.
func BenchmarkMergeMetadata(b *testing.B) {
	for _, n := range []int{10000, 20000, 40000, 80000} {
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			e := newCheckout(b, Options{})
			params, err := canon.Params(formType, []byte(metadataForm(n, "v")), "")
			if err != nil {
				b.Fatal(err)
			}
			m, ok := e.twin.Router.Match("POST", "/v1/customers/cus_x")
			if !ok {
				b.Fatal("no customer update route")
			}
			res := m.Value.Resource
			b.ReportAllocs()
			for b.Loop() {
				o := res.Skeleton.Clone()
				w := setter{d: e.dialect}
				if _, err := w.apply(o, reqParams{tree: params}, res.Immutable, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}

// TestEntityBoundedByMaxBody: updates that each add keys, each well under
// MaxBody, stop with a 400 before the entity passes MaxBody, and what is
// stored stays under it.
func TestEntityBoundedByMaxBody(t *testing.T) {
	const max = 32 << 10
	url := httpTwin(t, newCheckout(t, Options{MaxBody: max}))
	id := createCustomer(t, url, "g")
	value := strings.Repeat("x", 400)
	refused := false
	for i := 0; i < 200 && !refused; i++ {
		form := fmt.Sprintf("metadata[k%d_a]=%s&metadata[k%d_b]=%s", i, value, i, value)
		rep := send(t, context.Background(), "POST", url+"/v1/customers/"+id, formType, form, sessionHeader("g"))
		switch rep.status {
		case http.StatusOK:
			if len(rep.body) > max {
				t.Fatalf("update %d stored an entity of %d bytes, past MaxBody %d", i, len(rep.body), max)
			}
		case http.StatusBadRequest:
			refused = true
			errObj, _ := rep.json["error"].(map[string]any)
			if errObj["type"] != "invalid_request_error" || !strings.Contains(fmt.Sprint(errObj["message"]), "--max-body") {
				t.Errorf("want Stripe's invalid_request_error naming --max-body, have %s", rep.body)
			}
			if have := rep.header.Get("X-Wraith-Limit"); have != "entity-too-large" {
				t.Errorf("X-Wraith-Limit: want entity-too-large, have %q", have)
			}
		default:
			t.Fatalf("update %d: want 200 or 400, have %d %s", i, rep.status, rep.body)
		}
	}
	if !refused {
		t.Fatal("200 updates of 800 bytes each were all accepted: the entity grew past MaxBody")
	}
	rep := send(t, context.Background(), "GET", url+"/v1/customers/"+id, "", "", sessionHeader("g"))
	if rep.status != http.StatusOK || len(rep.body) > max {
		t.Errorf("after the refusal: want the last accepted entity (at most %d bytes), have %d, %d bytes", max, rep.status, len(rep.body))
	}
}

// TestParamLimits: past MaxParams or MaxDepth, a 400 in Stripe's shape that
// names the limit, before anything is decoded or stored.
func TestParamLimits(t *testing.T) {
	url := httpTwin(t, newCheckout(t, Options{}))
	tooMany := strings.TrimSuffix(strings.Repeat("expand[]=x&", canon.MaxParams+1), "&")
	tooDeep := "metadata" + strings.Repeat("[a]", canon.MaxDepth+1) + "=1"
	bigArray := `{"description":"x","tags":[` + strings.TrimSuffix(strings.Repeat("0,", canon.MaxParams+1), ",") + `]}`
	tests := []struct {
		name, ctype, body, query, code, mention string
	}{
		{"too many form params", formType, tooMany, "", canon.LimitParams, "100000 parameters"},
		{"too many json elements", "application/json", bigArray, "", canon.LimitParams, "100000 parameters"},
		{"form key too deep", formType, tooDeep, "", canon.LimitDepth, "32 levels"},
		{"query key too deep", "", "", tooDeep, canon.LimitDepth, "32 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := url + "/v1/customers"
			if tt.query != "" {
				target += "?" + tt.query
			}
			rep := send(t, context.Background(), "POST", target, tt.ctype, tt.body, sessionHeader("p"))
			errObj, _ := rep.json["error"].(map[string]any)
			if rep.status != http.StatusBadRequest || errObj["type"] != "invalid_request_error" {
				t.Fatalf("want 400 invalid_request_error, have %d %.300s", rep.status, rep.body)
			}
			if msg := fmt.Sprint(errObj["message"]); !strings.Contains(msg, tt.mention) {
				t.Errorf("message %q does not name the limit (%q)", msg, tt.mention)
			}
			if have := rep.header.Get("X-Wraith-Limit"); have != tt.code {
				t.Errorf("X-Wraith-Limit: want %s, have %q", tt.code, have)
			}
		})
	}
}

// TestIdempotencyFingerprintCoversQuery: query parameters are applied on
// POST, so the same key with other query values is another request.
func TestIdempotencyFingerprintCoversQuery(t *testing.T) {
	url := httpTwin(t, newCheckout(t, Options{}))
	h := map[string][]string{"X-Wraith-Session": {"i"}, "Idempotency-Key": {"k1"}}
	first := send(t, context.Background(), "POST", url+"/v1/customers?description=first", formType, "", h)
	if first.status != http.StatusOK || first.json["description"] != "first" {
		t.Fatalf("first: want 200 with the query's description, have %d %s", first.status, first.body)
	}
	again := send(t, context.Background(), "POST", url+"/v1/customers?description=first", formType, "", h)
	if again.header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(first.body) {
		t.Errorf("same query: want a replay, have %d %s", again.status, again.body)
	}
	other := send(t, context.Background(), "POST", url+"/v1/customers?description=second", formType, "", h)
	if other.status != http.StatusBadRequest || other.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("other query: want the idempotency error, have %d %s", other.status, other.body)
	}
}

// TestTwoSessionHeaders: two different names are refused; the same name
// twice is one session.
func TestTwoSessionHeaders(t *testing.T) {
	url := httpTwin(t, newCheckout(t, Options{}))
	rep := send(t, context.Background(), "GET", url+"/v1/customers", "", "", map[string][]string{"X-Wraith-Session": {"a", "b"}})
	errObj, _ := rep.json["error"].(map[string]any)
	if rep.status != http.StatusBadRequest || errObj["code"] != "invalid-session" {
		t.Errorf("two names: want 400 invalid-session, have %d %s", rep.status, rep.body)
	}
	rep = send(t, context.Background(), "GET", url+"/v1/customers", "", "", map[string][]string{"X-Wraith-Session": {"a", "a"}})
	if rep.status != http.StatusOK || rep.header.Get("X-Wraith-Session") != "a" {
		t.Errorf("one name twice: want 200 in session a, have %d %q", rep.status, rep.header.Get("X-Wraith-Session"))
	}
}

// TestIgnoredParamsHeaderCapped: thousands of unknown parameters give a
// short header and a count.
func TestIgnoredParamsHeaderCapped(t *testing.T) {
	// Unknown parameters are refused unless validation is off; then they
	// are ignored, and said to be.
	url := httpTwin(t, newCheckout(t, Options{Validate: Off}))
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "unknown_parameter_%05d=x&", i)
	}
	rep := send(t, context.Background(), "POST", url+"/v1/customers", formType, b.String(), sessionHeader("ig"))
	if rep.status != http.StatusOK {
		t.Fatalf("want 200, have %d %.300s", rep.status, rep.body)
	}
	list := rep.header.Get("X-Wraith-Ignored-Params")
	if len(list) == 0 || len(list) > maxIgnoredBytes || !strings.HasPrefix(list, "unknown_parameter_00000,") {
		t.Errorf("X-Wraith-Ignored-Params: want the first names within %d bytes, have %d bytes: %.80s", maxIgnoredBytes, len(list), list)
	}
	if have := rep.header.Get("X-Wraith-Ignored-Params-Count"); have != "5000" {
		t.Errorf("X-Wraith-Ignored-Params-Count: want 5000, have %q", have)
	}
}

// TestWaitingRequestGivesUp: a request queued behind another of its
// session returns when its client hangs up, instead of waiting for the
// lock and then working for nobody.
func TestWaitingRequestGivesUp(t *testing.T) {
	e := newCheckout(t, Options{})
	returned := make(chan struct{}, 1)
	url := httpTwin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.ServeHTTP(w, r)
		returned <- struct{}{}
	}))
	sess, err := e.Session("busy")
	if err != nil {
		t.Fatal(err)
	}
	held, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free)
	holderDone := make(chan struct{})
	go func() {
		defer close(holderDone)
		sess.Do(func(*session.State) {
			close(held)
			<-release
		})
	}()
	<-held

	ctx, cancel := context.WithCancel(context.Background())
	sent := make(chan error, 1)
	go func() {
		r, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/customers", strings.NewReader("description=x"))
		r.Header.Set("Content-Type", formType)
		r.Header.Set("X-Wraith-Session", "busy")
		resp, err := http.DefaultClient.Do(r)
		if err == nil {
			resp.Body.Close()
		}
		sent <- err
	}()
	// Hang up only once the server has the request and waits for the
	// session.
	deadline := time.Now().Add(10 * time.Second)
	for sess.Waiting() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the session")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-sent
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler still waits for the session 10 s after its client hung up")
	}
	free()
	<-holderDone
	var requests uint64
	sess.Do(func(st *session.State) { requests = st.Requests() })
	if requests != 0 {
		t.Errorf("the abandoned request still ran: the session counts %d requests", requests)
	}
}

// TestMemoryLimit: past MaxMemory, writes get 507 memory-limit and reads
// keep working.
func TestMemoryLimit(t *testing.T) {
	url := httpTwin(t, newCheckout(t, Options{MaxMemory: 1}))
	rep := send(t, context.Background(), "POST", url+"/v1/customers", formType, "description=x", sessionHeader("mem"))
	errObj, _ := rep.json["error"].(map[string]any)
	if rep.status != StatusMemoryFull || errObj["code"] != "memory-limit" || !strings.Contains(fmt.Sprint(errObj["message"]), "--max-memory") {
		t.Errorf("write past the limit: want 507 memory-limit naming --max-memory, have %d %s", rep.status, rep.body)
	}
	for _, target := range []string{"/v1/customers", "/v1/customers/cus_never_seen"} {
		if rep := send(t, context.Background(), "GET", url+target, "", "", sessionHeader("mem")); rep.status != http.StatusOK {
			t.Errorf("GET %s past the limit: want 200, have %d %s", target, rep.status, rep.body)
		}
	}
	roomy := httpTwin(t, newCheckout(t, Options{MaxMemory: 1 << 40}))
	if rep := send(t, context.Background(), "POST", roomy+"/v1/customers", formType, "description=x", sessionHeader("mem")); rep.status != http.StatusOK {
		t.Errorf("write under the limit: want 200, have %d %s", rep.status, rep.body)
	}
}
