package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/wraithdev/wraith/internal/testbin"
)

// agent drives one session and keeps its transcript: every response's
// status, provenance, route, exchange and body, in order.
type agent struct {
	tb      testing.TB
	base    string
	session string
	client  *http.Client
	out     strings.Builder
}

func (a *agent) call(method, path, form string, header ...string) map[string]any {
	a.tb.Helper()
	var body io.Reader
	if form != "" {
		body = strings.NewReader(form)
	}
	req, err := http.NewRequest(method, a.base+path, body)
	if err != nil {
		a.tb.Fatal(err)
	}
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("X-Wraith-Session", a.session)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := a.client.Do(req)
	if err != nil {
		a.tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.tb.Fatal(err)
	}
	h := resp.Header
	fmt.Fprintf(&a.out, "%s %s -> %d %s %s %s %s replayed=%s\n%s\n", method, path, resp.StatusCode,
		h.Get("X-Wraith-Provenance"), h.Get("X-Wraith-Route"), h.Get("X-Wraith-Exchange"), h.Get("X-Wraith-Session"), h.Get("Idempotent-Replayed"), b)
	var m map[string]any
	json.Unmarshal(b, &m)
	runtime.Gosched() // let other agents interleave between every request
	return m
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// provision creates session i with its own seed, fixture and clock.
func provision(tb testing.TB, base string, i int) {
	tb.Helper()
	fixture := []string{"checkout:baseline", "checkout:happy-path", ""}[i%3]
	body := fmt.Sprintf(`{"session":"agent-%d","seed":%d,"clock":{"mode":"deterministic","base_epoch":%d}`, i, 1000+i%5, 1700000000+i*60)
	if fixture != "" {
		body += fmt.Sprintf(`,"fixture":%q`, fixture)
	}
	body += "}"
	resp, err := http.Post(base+"/__wraith/session", "application/json", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		tb.Fatalf("provision agent-%d: want 201, have %d %s", i, resp.StatusCode, b)
	}
}

// workload is what agent i does: creates, updates (including a
// copy-on-write change of a recorded customer), deletes, lists with
// pagination, a payment intent's state machine, idempotent retries and a
// checkout session.
func workload(a *agent, i int) {
	var ids []string
	for k := 0; k < 3; k++ {
		c := a.call("POST", "/v1/customers", fmt.Sprintf("email=agent%d-%d%%40example.com&name=Agent+%d&metadata[k]=%d", i, k, i, k))
		ids = append(ids, str(c, "id"))
	}
	a.call("POST", "/v1/customers/"+ids[0], fmt.Sprintf("metadata[tier]=t%d&balance=%d", i, i*10))
	a.call("POST", "/v1/customers/cus_123", fmt.Sprintf("metadata[touched_by]=agent-%d", i))
	a.call("GET", "/v1/customers/cus_123", "")
	a.call("DELETE", "/v1/customers/"+ids[1], "")
	a.call("GET", "/v1/customers/"+ids[1], "")
	page := a.call("GET", "/v1/customers?limit=2", "")
	if data, ok := page["data"].([]any); ok && len(data) == 2 {
		last, _ := data[1].(map[string]any)
		a.call("GET", "/v1/customers?limit=3&starting_after="+str(last, "id"), "")
	}
	pi := a.call("POST", "/v1/payment_intents", fmt.Sprintf("amount=%d&currency=usd&capture_method=manual&customer=%s", 1000+i, ids[0]), "Idempotency-Key", "pi-1")
	a.call("POST", "/v1/payment_intents", fmt.Sprintf("amount=%d&currency=usd&capture_method=manual&customer=%s", 1000+i, ids[0]), "Idempotency-Key", "pi-1")
	a.call("POST", "/v1/payment_intents/"+str(pi, "id")+"/confirm", "payment_method=pm_card_visa")
	a.call("POST", "/v1/payment_intents/"+str(pi, "id")+"/capture", "")
	a.call("POST", "/v1/payment_intents/"+str(pi, "id")+"/cancel", "")
	a.call("GET", "/v1/payment_intents?limit=3", "")
	cs := a.call("POST", "/v1/checkout/sessions", "mode=payment&success_url=https%3A%2F%2Fexample.com%2Fok&line_items[0][price]=price_x&line_items[0][quantity]=1")
	a.call("POST", "/v1/checkout/sessions/"+str(cs, "id")+"/expire", "")
	a.call("GET", "/v1/customers/"+ids[2], "")
	a.call("GET", "/v1/customers/cus_neverseen", "")
}

// TestSessionIsolation runs 64 agents at once in one wraith-twin process
// and each agent alone in a fresh process: every agent's transcript must be
// byte-identical in both.
func TestSessionIsolation(t *testing.T) {
	const agents = 64
	bin := bins.Path(t, "./cmd/wraith-twin")
	args := []string{"checkout", "--port", "0", "--unknown-entity", "not_found"}
	shared := testbin.StartTwin(t, bin, args...)
	for i := 0; i < agents; i++ {
		provision(t, shared.URL, i)
	}
	together := make([]string, agents)
	var wg sync.WaitGroup
	for i := 0; i < agents; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			a := &agent{tb: t, base: shared.URL, session: fmt.Sprintf("agent-%d", i), client: &http.Client{}}
			workload(a, i)
			together[i] = a.out.String()
		}(i)
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	// Alone: one fresh process per agent, four at a time.
	sem := make(chan struct{}, 4)
	for i := 0; i < agents; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			t.Run(fmt.Sprintf("agent-%d", i), func(t *testing.T) {
				alone := testbin.StartTwin(t, bin, args...)
				provision(t, alone.URL, i)
				a := &agent{tb: t, base: alone.URL, session: fmt.Sprintf("agent-%d", i), client: &http.Client{}}
				workload(a, i)
				if have := a.out.String(); have != together[i] {
					t.Errorf("transcript differs between the shared run and the run alone\n%s", firstDiff(together[i], have))
				}
			})
		}(i)
	}
	wg.Wait()
}

// firstDiff shows the first differing line of two transcripts.
func firstDiff(want, have string) string {
	wl, hl := strings.Split(want, "\n"), strings.Split(have, "\n")
	for i := 0; i < len(wl) && i < len(hl); i++ {
		if wl[i] != hl[i] {
			return fmt.Sprintf("line %d\nshared: %s\nalone:  %s", i+1, wl[i], hl[i])
		}
	}
	return fmt.Sprintf("lengths differ: shared %d lines, alone %d lines", len(wl), len(hl))
}
