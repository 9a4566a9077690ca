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

	sh := shapeOf(name, cfg.sessions)
	creates := make([]probe, sh.n)
	for i := range creates {
		creates[i] = createProbe(sh.name(i))
	}
	hctx, cancel := context.WithTimeout(ctx, cfg.holdTimeout)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: cfg.holdConns, MaxConnsPerHost: cfg.holdConns, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	body := []byte(createBody)
	var next, ok, non2xx, errs atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range cfg.holdConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for hctx.Err() == nil && p.alive() {
				i := next.Add(1) - 1
				if i >= int64(cfg.hold) {
					return
				}
				code, _, err := do(c, p.url, creates[i%int64(sh.n)], body)
				switch {
				case err != nil:
					if hctx.Err() == nil {
						errs.Add(1)
					}
				case code == http.StatusOK:
					ok.Add(1)
				default:
					non2xx.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	r.Took = time.Since(t0)
	r.Entities, r.Non2xx, r.Errors = ok.Load(), non2xx.Load(), errs.Load()
	if !p.alive() {
		return r, fmt.Errorf("stopped during the creates: %v%s", p.err, tail(logPath))
	}
	if m, err = procStatus(p.pid); err != nil {
		return r, err
	}
	r.PeakRSS, r.RSS = m["VmHWM"], m["VmRSS"]
	return r, ctx.Err()
}
