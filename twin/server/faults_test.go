package server

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/twin/embedded"
)

// freshClient opens a new connection per request, so a reset is seen as
// the client's error and never retried on another connection.
var freshClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// try sends c and returns "reset" for a connection closed with no
// answer, else the response and its body.
func try(tb testing.TB, base string, c call) (*http.Response, []byte, bool) {
	tb.Helper()
	var body io.Reader
	if c.form != "" {
		body = strings.NewReader(c.form)
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	if err != nil {
		tb.Fatal(err)
	}
	if c.form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("X-Wraith-Session", c.session)
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	resp, err := freshClient.Do(req)
	if err != nil {
		return nil, nil, true
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp, b, false
}

// workload is n requests: creates, reads of what was created, lists.
func workload(n int) []call {
	var calls []call
	for i := range n {
		switch i % 4 {
		case 0, 1:
			calls = append(calls, call{method: "POST", path: "/v1/customers", form: "email=c" + strconv.Itoa(i) + "%40example.com"})
		case 2:
			calls = append(calls, call{method: "GET", path: "/v1/customers?limit=3"})
		default:
			calls = append(calls, call{method: "GET", path: "/v1/customers/cus_123"})
		}
	}
	return calls
}

// run sends calls in session and returns one transcript line per call:
// status, X-Wraith-Fault and body, or "reset".
func runCalls(tb testing.TB, base, session string, calls []call) []string {
	tb.Helper()
	out := make([]string, len(calls))
	for i, c := range calls {
		c.session = session
		resp, body, reset := try(tb, base, c)
		if reset {
			out[i] = c.method + " reset"
			continue
		}
		out[i] = fmt.Sprintf("%s %d %s %s", c.method, resp.StatusCode, resp.Header.Get("X-Wraith-Fault"), body)
	}
	return out
}

func faultsOf(lines []string) []string {
	var out []string
	for i, l := range lines {
		if strings.Contains(l, " reset") || strings.Contains(l, "flaky/") {
			out = append(out, strconv.Itoa(i)+":"+strings.Fields(l)[0]+" "+strings.Fields(l)[1])
		}
	}
	return out
}

func provision(tb testing.TB, base, body string) (int, map[string]any) {
	tb.Helper()
	resp, b := do(tb, base, call{method: "POST", path: "/__wraith/session", json: body})
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("provision %s: %v: %s", body, err, b)
	}
	return resp.StatusCode, m
}

// TestFaultsReproducibleAndIsolated: flaky's faults are fixed by the seed
// and scoped to the session.
func TestFaultsReproducibleAndIsolated(t *testing.T) {
	srv := startServer(t, "checkout", "--clock", "deterministic", "--clock-epoch", "1700000000")
	base := srv.URL()
	for _, p := range []string{
		`{"session":"a1","seed":7,"fault_profile":"flaky"}`,
		`{"session":"a2","seed":7,"fault_profile":"flaky"}`,
		`{"session":"b","seed":8,"fault_profile":"flaky"}`,
		`{"session":"quiet1","seed":7}`,
		`{"session":"quiet2","seed":7}`,
	} {
		if code, m := provision(t, base, p); code != http.StatusCreated {
			t.Fatalf("provision %s: %d %v", p, code, m)
		}
	}
	calls := workload(400)
	a1 := runCalls(t, base, "a1", calls)
	// a2 runs interleaved with a quiet session, and so does quiet2 with a
	// flaky one: neither may notice the other.
	a2 := make([]string, len(calls))
	q2 := make([]string, len(calls))
	for i, c := range calls {
		copy(a2[i:], runCalls(t, base, "a2", []call{c}))
		copy(q2[i:], runCalls(t, base, "quiet2", []call{c}))
	}
	if strings.Join(a1, "\n") != strings.Join(a2, "\n") {
		t.Errorf("same seed, same profile: the transcripts differ")
	}
	fa := faultsOf(a1)
	if len(fa) < 5 || len(fa) > 60 {
		t.Errorf("flaky over %d requests: want a few percent faulted, have %d: %v", len(calls), len(fa), fa)
	}
	if fb := faultsOf(runCalls(t, base, "b", calls)); strings.Join(fa, ",") == strings.Join(fb, ",") {
		t.Errorf("seeds 7 and 8 gave the same fault sequence %v", fa)
	}
	q1 := runCalls(t, base, "quiet1", calls)
	if strings.Join(q1, "\n") != strings.Join(q2, "\n") {
		t.Errorf("a quiet session's answers changed beside a faulted one")
	}
	if len(faultsOf(q1)) != 0 {
		t.Errorf("a session without a profile saw faults: %v", faultsOf(q1))
	}
}

// TestUnrelatedReadsDoNotMoveWriteFaults: the k-th write fails whatever
// reads come between writes.
func TestUnrelatedReadsDoNotMoveWriteFaults(t *testing.T) {
	srv := startServer(t, "checkout", "--fault-profile", "flaky", "--seed", "3")
	base := srv.URL()
	var writes, mixed []call
	for i := range 300 {
		w := call{method: "POST", path: "/v1/products", form: "name=p" + strconv.Itoa(i)}
		writes = append(writes, w)
		mixed = append(mixed, w)
		for range i % 3 {
			mixed = append(mixed, call{method: "GET", path: "/v1/products/prod_nope"})
		}
	}
	writeFaults := func(lines []string) []string {
		var out []string
		n := 0
		for _, l := range lines {
			if !strings.HasPrefix(l, "POST") {
				continue
			}
			if strings.Contains(l, " reset") || strings.Contains(l, "flaky/") {
				f := strings.Fields(l)
				out = append(out, strconv.Itoa(n)+" "+strings.Join(f[1:min(3, len(f))], " "))
			}
			n++
		}
		return out
	}
	alone := writeFaults(runCalls(t, base, "writes", writes))
	between := writeFaults(runCalls(t, base, "mixed", mixed))
	if len(alone) == 0 {
		t.Fatal("300 writes under flaky: want some faults, have none")
	}
	if strings.Join(alone, ",") != strings.Join(between, ",") {
		t.Errorf("reads moved which writes fail:\nalone   %v\nbetween %v", alone, between)
	}
}

// faultTwin writes the embedded checkout twin to a folder with profiles
// of its own added, and returns the folder.
func faultTwin(tb testing.TB, profiles string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "checkout")
	sub, err := fs.Sub(embedded.FS(), "checkout")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.CopyFS(dir, sub); err != nil {
		tb.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "twin.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n" + profiles); err != nil {
		tb.Fatal(err)
	}
	return dir
}

const lossyProfile = `
[[fault_profiles]]
name = "lossy"
[[fault_profiles.rules]]
name = "lost-create"
match = { method = "POST", route = "/v1/customers" }
when = { nth = [2] }
phase = "post"
effect = { reset = "before_headers" }
[[fault_profiles.rules]]
name = "create-500"
match = { method = "POST", route = "/v1/customers" }
when = { nth = [4] }
phase = "post"
effect = { error = "api_error" }
[[fault_profiles.rules]]
name = "slow-read"
match = { method = "GET" }
when = { every = 1 }
latency = "1500ms"
`

// TestPostPhaseKeepsTheChange: a post fault loses the answer, the entity
// exists, and an Idempotency-Key retry returns it as replayed.
func TestPostPhaseKeepsTheChange(t *testing.T) {
	srv := startServer(t, faultTwin(t, lossyProfile), "--fault-profile", "lossy", "--clock", "fixed", "--clock-epoch", "1700000000")
	base := srv.URL()
	create := func(key string) (*http.Response, []byte, bool) {
		return try(t, base, call{method: "POST", path: "/v1/customers", session: "s", form: "email=x%40example.com", header: map[string]string{"Idempotency-Key": key}})
	}
	if resp, _, reset := create("k1"); reset || resp.StatusCode != 200 {
		t.Fatalf("first create: want 200, have %v reset=%v", resp, reset)
	}
	if _, _, reset := create("k2"); !reset {
		t.Fatal("second create: want a reset connection (post phase)")
	}
	resp, body, reset := create("k2")
	if reset || resp.StatusCode != 200 || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry with the same key: want 200 replayed, have %v reset=%v %s", resp, reset, body)
	}
	var cus map[string]any
	json.Unmarshal(body, &cus)
	id, _ := cus["id"].(string)
	if _, b := do(t, base, call{path: "/v1/customers/" + id, session: "s"}); !strings.Contains(string(b), id) {
		t.Errorf("the lost create's customer %s is not readable: %s", id, b)
	}
	// The retry was the third matching request; the fourth loses its answer to a 500.
	resp, body, _ = create("k3")
	if resp.StatusCode != 500 || resp.Header.Get("X-Wraith-Fault") != "lossy/create-500" || resp.Header.Get("X-Wraith-Provenance") != "fault" || !strings.Contains(string(body), `"type":"api_error"`) {
		t.Fatalf("third create: want Stripe's 500 api_error from lossy/create-500, have %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, body, _ = create("k3")
	if resp.StatusCode != 200 || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry after a post-phase 500: want the stored entity replayed, have %d %s", resp.StatusCode, body)
	}
	// Latency on a fixed clock moves the session clock, not the wall clock.
	resp, _ = do(t, base, call{path: "/v1/customers/" + id, session: "s"})
	if resp.Header.Get("X-Wraith-Fault") != "lossy/slow-read" {
		t.Errorf("slow read: want X-Wraith-Fault lossy/slow-read, have %q", resp.Header.Get("X-Wraith-Fault"))
	}
	_, b := do(t, base, call{method: "POST", path: "/v1/products", session: "s", form: "name=after"})
	var prod map[string]any
	json.Unmarshal(b, &prod)
	if have := prod["created"]; have != float64(1700000003) {
		t.Errorf("after two reads of 1500ms latency on a fixed clock: want created 1700000003, have %v", have)
	}
}

// TestResetIsAConnectionError: a reset answers nothing, and the server
// goes on serving.
func TestResetIsAConnectionError(t *testing.T) {
	srv := startServer(t, faultTwin(t, lossyProfile), "--fault-profile", "lossy")
	base := srv.URL()
	try(t, base, call{method: "POST", path: "/v1/customers", session: "r"})
	req, _ := http.NewRequest("POST", base+"/v1/customers", nil)
	req.Header.Set("X-Wraith-Session", "r")
	resp, err := freshClient.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("want a connection error, have an answer %d", resp.StatusCode)
	}
	if !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "reset") && !strings.Contains(err.Error(), "EOF") {
		t.Errorf("want EOF or a reset, have %v", err)
	}
	if resp, _ := do(t, base, call{path: "/__wraith/health"}); resp.StatusCode != 200 {
		t.Errorf("health after a reset: %d", resp.StatusCode)
	}
	if resp, _, reset := try(t, base, call{method: "POST", path: "/v1/customers", session: "other"}); reset || resp.StatusCode != 200 {
		t.Errorf("another session after a reset: want 200, have reset=%v", reset)
	}
}

// TestFaultsAcrossProcesses: two wraith-twin processes with the same seed
// and profile answer 500 requests with the same bytes, faults included.
func TestFaultsAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wraith-twin")
	}
	bin := bins.Path(t, "./cmd/wraith-twin")
	args := []string{"checkout", "--port", "0", "--fault-profile", "flaky", "--seed", "11", "--clock", "deterministic", "--clock-epoch", "1700000000", "--no-control-headers"}
	var runs [2][]string
	for i := range runs {
		tw := testbin.StartTwin(t, bin, args...)
		runs[i] = runCalls(t, tw.URL, "agent", workload(500))
		tw.Stop(t)
	}
	if a, b := strings.Join(runs[0], "\n"), strings.Join(runs[1], "\n"); a != b {
		t.Fatalf("two processes, same seed and profile: the 500 answers differ")
	}
	if n := len(faultsOf(runs[0])); n == 0 {
		// --no-control-headers hides X-Wraith-Fault; count the 500s and resets.
		n500 := strings.Count(strings.Join(runs[0], "\n"), " 500 ") + strings.Count(strings.Join(runs[0], "\n"), " reset")
		if n500 == 0 {
			t.Fatal("500 requests under flaky: want some faults, have none")
		}
	}
}

// TestUnknownFaultProfile: serve refuses it listing the profiles, and
// provisioning answers 404 with them.
func TestUnknownFaultProfile(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := Flags(fs)
	fs.Parse([]string{"--fault-profile", "chaos"})
	cfg.Twin = "checkout"
	_, err := Open(*cfg, Deps{Getenv: func(string) string { return "" }, Version: "test", Now: func() time.Time { return frozen }})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--fault-profile \"chaos\"") || !strings.Contains(err.Error(), "flaky, none, slow") {
		t.Fatalf("want a usage error listing flaky, none, slow; have %v", err)
	}
	srv := startServer(t, "checkout")
	code, m := provision(t, srv.URL(), `{"session":"x","fault_profile":"chaos"}`)
	e, _ := m["error"].(map[string]any)
	if code != 404 || e["code"] != "fault-profile-not-found" || fmt.Sprint(e["available"]) != "[flaky none slow]" {
		t.Fatalf("provision with an unknown profile: want 404 fault-profile-not-found with available, have %d %v", code, m)
	}
}

// TestSessionSettingsFaultAndRate: provisioning takes fault_profile and
// rate_limit, names them, lists them, and they take part in conflicts.
func TestSessionSettingsFaultAndRate(t *testing.T) {
	srv := startServer(t, "checkout", "--rate-limit", "100/m")
	base := srv.URL()
	code, m := provision(t, base, `{"session":"p","fault_profile":"slow","rate_limit":"10/s"}`)
	if code != 201 || m["fault_profile"] != "slow" || m["rate_limit"] != "10/s" {
		t.Fatalf("provision: want 201 naming slow and 10/s, have %d %v", code, m)
	}
	if code, _ := provision(t, base, `{"session":"p","fault_profile":"slow","rate_limit":"10/s"}`); code != 200 {
		t.Errorf("same settings again: want 200, have %d", code)
	}
	if code, m := provision(t, base, `{"session":"p","fault_profile":"flaky","rate_limit":"10/s"}`); code != 409 {
		t.Errorf("another profile: want 409, have %d %v", code, m)
	}
	if code, m := provision(t, base, `{"session":"p","fault_profile":"slow","rate_limit":"11/s"}`); code != 409 {
		t.Errorf("another rate: want 409, have %d %v", code, m)
	}
	if code, m := provision(t, base, `{"session":"q","rate_limit":"ten"}`); code != 400 {
		t.Errorf("a bad rate: want 400, have %d %v", code, m)
	}
	if code, m := provision(t, base, `{"session":"d"}`); code != 201 || m["rate_limit"] != "100/m" || m["fault_profile"] != nil {
		t.Errorf("defaults: want the serve-wide 100/m and no profile, have %d %v", code, m)
	}
	_, b := do(t, base, call{path: "/__wraith/session"})
	if !strings.Contains(string(b), `"session":"p"`) || !strings.Contains(string(b), `"fault_profile":"slow","rate_limit":"10/s"`) {
		t.Errorf("GET session: want p with slow and 10/s, have %s", b)
	}
}

// TestPerSessionRateLimit: on a deterministic clock exactly 2 requests of
// each session-second pass, then 429 with Retry-After; the unlimited
// session beside it is untouched.
func TestPerSessionRateLimit(t *testing.T) {
	srv := startServer(t, "checkout", "--clock", "deterministic", "--clock-epoch", "1700000000", "--clock-step", "250ms")
	base := srv.URL()
	provision(t, base, `{"session":"limited","rate_limit":"2/s"}`)
	provision(t, base, `{"session":"free"}`)
	var have, free []string
	for range 12 {
		resp, _ := do(t, base, call{path: "/v1/customers/cus_123", session: "limited"})
		have = append(have, strconv.Itoa(resp.StatusCode)+":"+resp.Header.Get("Retry-After"))
		resp, _ = do(t, base, call{path: "/v1/customers/cus_123", session: "free"})
		free = append(free, strconv.Itoa(resp.StatusCode))
	}
	want := "200: 200: 429:1 429:1 200: 200: 429:1 429:1 200: 200: 429:1 429:1"
	if strings.Join(have, " ") != want {
		t.Errorf("2/s at 4 requests per session-second:\nwant %s\nhave %s", want, strings.Join(have, " "))
	}
	if strings.Count(strings.Join(free, " "), "200") != 12 {
		t.Errorf("the unlimited session: want 12 200s, have %v", free)
	}
	resp, body := do(t, base, call{path: "/v1/customers/cus_123", session: "limited"})
	if resp.StatusCode == 429 && (resp.Header.Get("X-Wraith-Provenance") != "fault" || !strings.Contains(string(body), "rate_limit")) {
		t.Errorf("a 429: want provenance fault and Stripe's rate_limit body, have %v %s", resp.Header, body)
	}
}

// TestDeclinesWithStripeGo: Stripe's declining test payment methods give
// the stripe.Error stripe-go expects, and pm_card_visa then succeeds.
func TestDeclinesWithStripeGo(t *testing.T) {
	srv := startServer(t, "checkout")
	ctx := context.Background()
	for _, c := range []struct {
		pm, code, decline, message string
	}{
		{"pm_card_chargeDeclined", "card_declined", "generic_decline", "Your card was declined."},
		{"pm_card_visa_chargeDeclined", "card_declined", "generic_decline", "Your card was declined."},
		{"pm_card_visa_chargeDeclinedInsufficientFunds", "card_declined", "insufficient_funds", "Your card has insufficient funds."},
		{"pm_card_visa_chargeDeclinedLostCard", "card_declined", "lost_card", "Your card was declined."},
		{"pm_card_visa_chargeDeclinedStolenCard", "card_declined", "stolen_card", "Your card was declined."},
		{"pm_card_chargeDeclinedExpiredCard", "expired_card", "", "Your card has expired."},
		{"pm_card_chargeDeclinedIncorrectCvc", "incorrect_cvc", "", "Your card's security code is incorrect."},
		{"pm_card_chargeDeclinedProcessingError", "processing_error", "", "An error occurred while processing your card. Try again in a little bit."},
	} {
		t.Run(c.pm, func(t *testing.T) {
			sc := stripeClient(srv.URL(), "decline-"+c.pm)
			pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(2000), Currency: stripe.String("usd")})
			if err != nil {
				t.Fatal(err)
			}
			_, err = sc.V1PaymentIntents.Confirm(ctx, pi.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String(c.pm)})
			var se *stripe.Error
			if !errors.As(err, &se) {
				t.Fatalf("confirm: want a *stripe.Error, have %v", err)
			}
			if se.HTTPStatusCode != 402 || se.Type != stripe.ErrorTypeCard || string(se.Code) != c.code || string(se.DeclineCode) != c.decline || se.Msg != c.message {
				t.Errorf("want 402 card_error %s/%s %q, have %d %s %s/%s %q", c.code, c.decline, c.message, se.HTTPStatusCode, se.Type, se.Code, se.DeclineCode, se.Msg)
			}
			if want := "https://stripe.com/docs/error-codes/" + strings.ReplaceAll(c.code, "_", "-"); se.DocURL != want {
				t.Errorf("doc_url: want %s, have %s", want, se.DocURL)
			}
			if se.PaymentIntent == nil || se.PaymentIntent.ID != pi.ID || se.PaymentIntent.Status != stripe.PaymentIntentStatusRequiresPaymentMethod {
				t.Errorf("error.payment_intent: want %s requires_payment_method, have %+v", pi.ID, se.PaymentIntent)
			}
			got, err := sc.V1PaymentIntents.Retrieve(ctx, pi.ID, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != stripe.PaymentIntentStatusRequiresPaymentMethod || got.LastPaymentError == nil || string(got.LastPaymentError.Code) != c.code || string(got.LastPaymentError.DeclineCode) != c.decline {
				t.Errorf("after the decline: want requires_payment_method with last_payment_error %s, have %s %+v", c.code, got.Status, got.LastPaymentError)
			}
			if h := got.LastResponse.Header.Get("X-Wraith-Provenance"); h != "handler" {
				t.Errorf("provenance: want handler, have %s", h)
			}
			ok, err := sc.V1PaymentIntents.Confirm(ctx, pi.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String("pm_card_visa")})
			if err != nil || ok.Status != stripe.PaymentIntentStatusSucceeded || ok.LastPaymentError != nil {
				t.Fatalf("confirm with pm_card_visa after the decline: want succeeded, have %v %+v", err, ok)
			}
		})
	}
}
