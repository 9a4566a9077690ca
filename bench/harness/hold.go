package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// holdResult is one memory load: what a fresh Wraith holds once it has
// answered cfg.hold creates, spread over the sessions of its shape.
type holdResult struct {
	Server           string
	Entities         int64 // creates answered 200: customers the process holds
	Non2xx, Errors   int64 // other answers; transport errors
	IdleRSS, PeakRSS int64 // KiB: VmRSS a second after start; VmHWM once the creates are answered
	RSS              int64 // KiB: VmRSS once the creates are answered
	Took             time.Duration
}

// perEntity is (peak RSS − idle RSS) / entities, in bytes.
func (r holdResult) perEntity() float64 {
	if r.Entities == 0 {
		return 0
	}
	return float64((r.PeakRSS-r.IdleRSS)*1024) / float64(r.Entities)
}

// holdLoad starts a fresh Wraith for a server's shape, reads its idle RSS,
// sends cfg.hold creates over cfg.holdConns keep-alive connections
// (session i%n takes the i-th), bounded by cfg.holdTimeout, and reads its
// peak RSS. The process is stopped before it returns.
func holdLoad(ctx context.Context, cfg benchConfig, name string, pass int, b bodies) (holdResult, error) {
	r := holdResult{Server: name}
	work := filepath.Join(cfg.out, "work", name+"-hold")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return r, err
	}
	s, err := specFor(name, cfg.peers, b, work, cfg.sessions*2)
	if err != nil {
		return r, err
	}
	logPath := filepath.Join(cfg.out, "logs", fmt.Sprintf("%s-hold-pass%d.log", name, pass))
	waitQuiet(ctx, cfg)
	p, _, err := start(ctx, s, logPath, 2*time.Minute)
	if err != nil {
		return r, fmt.Errorf("did not start: %w", err)
	}
	defer p.stop()
	sleep(ctx, time.Second)
	m, err := procStatus(p.pid)
	if err != nil {
		return r, err
	}
	r.IdleRSS = m["VmRSS"]

	c := sendCreates(ctx, p, shapeOf(name, cfg.sessions), cfg.hold, cfg.holdConns, cfg.holdTimeout)
	r.Took, r.Entities, r.Non2xx, r.Errors = c.took, c.ok, c.non2xx, c.errs
	if !p.alive() {
		return r, fmt.Errorf("stopped during the creates: %v%s", p.err, tail(logPath))
	}
	if m, err = procStatus(p.pid); err != nil {
		return r, err
	}
	r.PeakRSS, r.RSS = m["VmHWM"], m["VmRSS"]
	return r, ctx.Err()
}

// createCounts is what a run of creates got back.
type createCounts struct {
	ok, non2xx, errs int64
	took             time.Duration
}

// sendCreates sends n creates (the i-th in session i%sh.n) to p over
// conns keep-alive connections, bounded by timeout: when it passes, the
// process holds what was created by then. It stops early when p exits
// or ctx ends, and counts the answers; the callers judge them.
func sendCreates(ctx context.Context, p *proc, sh shape, n, conns int, timeout time.Duration) createCounts {
	creates := make([]probe, sh.n)
	for i := range creates {
		creates[i] = createProbe(sh.name(i))
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	body := []byte(createBody)
	var next, ok, non2xx, errs atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range conns {
		wg.Go(func() {
			for cctx.Err() == nil && p.alive() {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				code, _, err := do(c, p.url, creates[i%int64(sh.n)], body)
				switch {
				case err != nil:
					if cctx.Err() == nil {
						errs.Add(1)
					}
				case code == http.StatusOK:
					ok.Add(1)
				default:
					non2xx.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return createCounts{ok: ok.Load(), non2xx: non2xx.Load(), errs: errs.Load(), took: time.Since(t0)}
}
