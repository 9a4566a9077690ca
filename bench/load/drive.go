package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wraithdev/wraith/ipc"
)

// recordedGets are checkout requests answered from recordings.
var recordedGets = []string{
	"/v1/balance",
	"/v1/customers/cus_123",
	"/v1/products/prod_aKDIkVFGrwdNIB",
	"/v1/prices/price_1rb1MzPq4ZnWbT7cPZcLm4US",
}

// designed are the statuses this request mix is answered with by design:
// all 200 (never-seen ids are synthesized, sessions and entities stay far
// below their limits). Anything else, 5xx above all, fails the run.
var designed = map[int]bool{http.StatusOK: true}

// result is what a run saw.
type result struct {
	elapsed   time.Duration
	byKind    map[string]int
	byStatus  map[int]int
	transport int
	firstErr  error
	firstBad  string
	latencies []time.Duration
}

// worker is one connection's share of the load.
type worker struct {
	client *http.Client
	base   string
	rng    *rand.Rand
	res    result
}

// drive runs c.conns workers, each with its own connection, until
// c.duration has passed or ctx ends.
func drive(ctx context.Context, base string, c config) result {
	tr := &http.Transport{MaxIdleConnsPerHost: c.conns, MaxConnsPerHost: c.conns, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections() // the clients hang up, so the twin's connection goroutines end
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}

	ctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	workers := make([]*worker, c.conns)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range workers {
		w := &worker{client: client, base: base, rng: rand.New(rand.NewPCG(uint64(i), 0x6c6f6164)),
			res: result{byKind: map[string]int{}, byStatus: map[int]int{}}}
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				w.one(ctx, c.sessions)
			}
		}()
	}
	wg.Wait()
	total := result{elapsed: time.Since(start), byKind: map[string]int{}, byStatus: map[int]int{}}
	for _, w := range workers {
		total.merge(&w.res)
	}
	return total
}

// one sends one request of the mix: 50% recorded GETs, 25% creates, 20%
// lists, 5% reads of never-seen ids and control reads.
func (w *worker) one(ctx context.Context, sessions int) {
	session := "load-" + strconv.Itoa(w.rng.IntN(sessions))
	var kind, method, path, body string
	switch p := w.rng.IntN(100); {
	case p < 50:
		kind, method, path = "recorded", "GET", recordedGets[w.rng.IntN(len(recordedGets))]
	case p < 75:
		kind, method, path = "create", "POST", "/v1/customers"
		body = "description=load&metadata[n]=" + strconv.Itoa(w.rng.IntN(1000))
	case p < 95:
		kind, method, path = "list", "GET", "/v1/customers?limit=10"
	case p < 99:
		kind, method, path = "template", "GET", "/v1/customers/cus_load"+strconv.Itoa(w.rng.IntN(1000))
	default:
		kind, method, path = "control", "GET", "/__wraith/info"
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, w.base+path, rd)
	if err != nil {
		panic(err) // the mix builds only valid requests
	}
	req.Header.Set(ipc.SessionHeader, session)
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	t0 := time.Now()
	resp, err := w.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return // the run ended mid-request: not the twin's failure
		}
		w.res.transport++
		if w.res.firstErr == nil {
			w.res.firstErr = err
		}
		return
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil && ctx.Err() != nil {
		return
	}
	w.res.latencies = append(w.res.latencies, time.Since(t0))
	w.res.byKind[kind]++
	w.res.byStatus[resp.StatusCode]++
	if !designed[resp.StatusCode] && w.res.firstBad == "" {
		w.res.firstBad = fmt.Sprintf("%s %s -> %d %s", method, path, resp.StatusCode, b)
	}
}

func (r *result) merge(o *result) {
	for k, n := range o.byKind {
		r.byKind[k] += n
	}
	for s, n := range o.byStatus {
		r.byStatus[s] += n
	}
	r.transport += o.transport
	if r.firstErr == nil {
		r.firstErr = o.firstErr
	}
	if r.firstBad == "" {
		r.firstBad = o.firstBad
	}
	r.latencies = append(r.latencies, o.latencies...)
}

// unexpected returns the statuses outside the mix's design, sorted.
func (r *result) unexpected() []int {
	var out []int
	for s := range r.byStatus {
		if !designed[s] {
			out = append(out, s)
		}
	}
	sort.Ints(out)
	return out
}

func (r *result) print(w io.Writer) {
	n := len(r.latencies)
	fmt.Fprintf(w, "load: %d requests in %s: %.0f req/s\n", n, r.elapsed.Round(time.Millisecond), float64(n)/r.elapsed.Seconds())
	var statuses []string
	for _, s := range slices.Sorted(maps.Keys(r.byStatus)) {
		statuses = append(statuses, fmt.Sprintf("%d: %d", s, r.byStatus[s]))
	}
	fmt.Fprintf(w, "load: statuses %s; transport errors %d\n", strings.Join(statuses, ", "), r.transport)
	var kinds []string
	for _, k := range slices.Sorted(maps.Keys(r.byKind)) {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, r.byKind[k]))
	}
	fmt.Fprintf(w, "load: mix %s\n", strings.Join(kinds, ", "))
	if n > 0 {
		slices.Sort(r.latencies)
		q := func(p float64) time.Duration { return r.latencies[min(n-1, int(p*float64(n)))] }
		fmt.Fprintf(w, "load: latency p50 %s, p99 %s, max %s\n", q(0.50).Round(time.Microsecond), q(0.99).Round(time.Microsecond), r.latencies[n-1].Round(time.Microsecond))
	}
}
