//go:build unix

package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"testing"
)

// This round's served benchmarks (issue 29): a Stripe payment with its
// behaviour here, a git push to the github twin in bench_push_test.go.
// bench/round3.sh runs them beside BenchmarkServedValidation and
// BenchmarkServedCreateState and puts benchstat's ratios into make
// bench's report.

// flowAmount is every flow's payment, in cents.
const flowAmount = 2000

// BenchmarkServedStripeFlow is one payment as Stripe's accept-a-payment
// flow makes it, per op: a PaymentIntent created with a test card,
// confirmed (which charges it: the intent succeeds with its charge) and
// refunded in full. Every answer is checked, so that the benchmark fails
// when the behaviour does: each is 200, the confirmed intent succeeded
// with a charge, and the refund succeeded for the intent's amount. It runs on
// the imported stripe twin, with --validate strict and off, in memory and
// with --state-dir, for
//
//	benchstat -col /validate   (what validation costs a flow of writes)
//	benchstat -col /store      (what durable writes cost it)
//
// The recorded checkout twin cannot run it: it has no refunds, and its
// confirm makes no charge. Flows spread over 64 sessions, 16 connections
// per core; ns/op is one whole flow (three requests), cpu-ns/op the
// process's CPU time (server and client) per flow.
func BenchmarkServedStripeFlow(b *testing.B) {
	for _, store := range []string{"memory", "state-dir"} {
		for _, mode := range []string{"strict", "off"} {
			b.Run(fmt.Sprintf("twin=stripe/store=%s/validate=%s", store, mode), func(b *testing.B) {
				args := []string{"--port", "0", "--seed", "42", "--clock", "deterministic", "--validate", mode, "--fixture", "baseline"}
				if store == "state-dir" {
					args = append(args, "--state-dir", b.TempDir())
				}
				addr := startServer(b, "stripe", args...).Addr().String()
				start := cpuTime(b)
				benchFlows(b, addr, 16)
				b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkServedCreateStateStripe is BenchmarkServedCreateState on the
// imported stripe twin, so that bench/round3.sh can set durable creates
// of the two twins side by side.
func BenchmarkServedCreateStateStripe(b *testing.B) {
	for _, store := range []string{"memory", "state-dir"} {
		b.Run("store="+store, func(b *testing.B) {
			args := []string{"--port", "0", "--seed", "42", "--clock", "deterministic", "--fixture", "baseline"}
			if store == "state-dir" {
				args = append(args, "--state-dir", b.TempDir())
			}
			srv := startServer(b, "stripe", args...)
			reqs := createRequests(64)
			benchServed(b, srv.Addr().String(), 16, true, func(i int) []byte { return reqs[i%len(reqs)] })
		})
	}
}

// benchFlows runs b.N payment flows from b.RunParallel goroutines, each
// on its own keep-alive connection, perCore of them per core.
func benchFlows(b *testing.B, addr string, perCore int) {
	b.ReportAllocs()
	b.SetParallelism(perCore)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			b.Error(err)
			return
		}
		defer conn.Close()
		c := &flowClient{conn: conn, r: bufio.NewReaderSize(conn, 8192)}
		for i := 0; pb.Next(); i++ {
			if err := c.flow(fmt.Sprintf("f-%d", i%64)); err != nil {
				b.Errorf("flow %d: %v", i, err)
				return
			}
		}
	})
	b.StopTimer()
}

// flowClient sends one flow's requests over one connection and reads
// each answer whole, as the flow needs the ids in them.
type flowClient struct {
	conn net.Conn
	r    *bufio.Reader
	req  []byte
	body bytes.Buffer
}

// paymentAnswer is what the flow reads of its answers.
type paymentAnswer struct {
	ID            string `json:"id"`
	Object        string `json:"object"`
	Status        string `json:"status"`
	Amount        int64  `json:"amount"`
	LatestCharge  any    `json:"latest_charge"` // an id, or the charge expanded
	PaymentIntent string `json:"payment_intent"`
}

// flow creates, confirms and refunds one payment in session and checks
// each answer.
func (c *flowClient) flow(session string) error {
	pi, err := c.post(session, "/v1/payment_intents",
		fmt.Sprintf("amount=%d&currency=usd&payment_method=pm_card_visa&payment_method_types[]=card", flowAmount))
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if pi.Object != "payment_intent" || pi.ID == "" || pi.Amount != flowAmount {
		return fmt.Errorf("create: want a payment_intent of %d, have %+v", flowAmount, pi)
	}
	confirmed, err := c.post(session, "/v1/payment_intents/"+pi.ID+"/confirm", "")
	if err != nil {
		return fmt.Errorf("confirm: %w", err)
	}
	if confirmed.Status != "succeeded" || confirmed.LatestCharge == nil {
		return fmt.Errorf("confirm: want succeeded with a charge, have %+v", confirmed)
	}
	refund, err := c.post(session, "/v1/refunds", "payment_intent="+pi.ID)
	if err != nil {
		return fmt.Errorf("refund: %w", err)
	}
	if refund.Object != "refund" || refund.Status != "succeeded" || refund.Amount != pi.Amount || refund.PaymentIntent != pi.ID {
		return fmt.Errorf("refund: want a refund of %d of %s, have %+v", pi.Amount, pi.ID, refund)
	}
	return nil
}

// post sends a form POST in session and decodes its answer, which must
// be 200.
func (c *flowClient) post(session, path, form string) (paymentAnswer, error) {
	c.req = fmt.Appendf(c.req[:0], "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wraith-Session: %s\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", path, session, len(form), form)
	var a paymentAnswer
	if _, err := c.conn.Write(c.req); err != nil {
		return a, err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return a, err
	}
	c.body.Reset()
	_, err = c.body.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return a, err
	}
	if resp.StatusCode != http.StatusOK {
		return a, fmt.Errorf("want 200, have %d %.300s", resp.StatusCode, c.body.Bytes())
	}
	if err := json.Unmarshal(c.body.Bytes(), &a); err != nil {
		return a, fmt.Errorf("answer %.300s: %w", c.body.Bytes(), err)
	}
	return a, nil
}

// pushSessions is how many sessions BenchmarkServedGitPush's pushers
// spread over, as the creates spread over 64.
const pushSessions = 64
