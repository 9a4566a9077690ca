package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
)

// watcher keeps one child running: first start, then restarts.
type watcher struct {
	s      *Supervisor
	c      Child
	port   int // the port to ask for; pinned after the first ready
	events chan<- event
	logger hclog.Logger // supervisor's messages about the child
	out    hclog.Logger // the child's own output
	file   hclog.Logger // the child's own output, to its log file; may be nil
}

func (w *watcher) run(ctx context.Context) error {
	cfg := w.s.cfg
	p, err := w.start(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	if !w.firstReady(ctx, p) {
		p.stop(cfg.StopGrace)
		return nil
	}
	restarts := 0
	var crashes []time.Time
	for {
		select {
		case <-ctx.Done():
			p.stop(cfg.StopGrace)
			return nil
		case <-p.exited:
		}
		p.release()
		if ctx.Err() != nil { // exited while we were being stopped
			return nil
		}
		crashes = w.crashed(crashes, p.exitStatus())
		if len(crashes) >= cfg.MaxCrashes {
			return w.giveUp(p, len(crashes))
		}
		if !w.send(ctx, event{name: w.c.Name, status: StatusRestarting, restarts: restarts, at: cfg.Now()}) {
			return nil
		}
		for {
			delay := backoff(cfg.RestartBackoff, len(crashes))
			w.logger.Info("restarting", "in", delay, "port", w.port, "crashes", len(crashes), "window", cfg.CrashWindow)
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
			np, err := w.start(ctx)
			if ctx.Err() != nil {
				if err == nil {
					np.stop(cfg.StopGrace)
				}
				return nil
			}
			if err == nil {
				p = np
				break
			}
			w.logger.Error("restart failed", "error", err)
			crashes = w.crashed(crashes, "")
			if len(crashes) >= cfg.MaxCrashes {
				var ce *ChildError
				if !errors.As(err, &ce) {
					ce = &ChildError{Name: w.c.Name, Err: err}
				}
				ce.Err = fmt.Errorf("crashed %d times within %s, giving up (last: %w)", len(crashes), cfg.CrashWindow, ce.Err)
				return ce
			}
		}
		restarts++
		w.logger.Info("restarted", "pid", p.pid, "port", w.port, "restarts", restarts)
		if !w.send(ctx, event{name: w.c.Name, status: StatusReady, ready: p.ready, restarts: restarts, at: cfg.Now()}) {
			p.stop(cfg.StopGrace)
			return nil
		}
	}
}

// start spawns the child and, when it is ready, reports it.
func (w *watcher) start(ctx context.Context) (*process, error) {
	p, err := spawn(ctx, w.s, w.c, w.port, w.out, w.file, w.logger)
	if err != nil {
		return nil, err
	}
	if w.port == 0 {
		w.port = p.ready.Serve.Port
	}
	return p, nil
}

func (w *watcher) firstReady(ctx context.Context, p *process) bool {
	return w.send(ctx, event{name: w.c.Name, status: StatusReady, ready: p.ready, at: w.s.cfg.Now()})
}

// crashed records a crash and returns the crashes within the window.
func (w *watcher) crashed(crashes []time.Time, status string) []time.Time {
	now := w.s.cfg.Now()
	recent := crashes[:0]
	for _, t := range crashes {
		if now.Sub(t) < w.s.cfg.CrashWindow {
			recent = append(recent, t)
		}
	}
	if status != "" {
		w.logger.Error("twin exited unexpectedly", "status", status, "crashes", len(recent)+1, "window", w.s.cfg.CrashWindow)
	}
	return append(recent, now)
}

func (w *watcher) giveUp(p *process, n int) error {
	return &ChildError{
		Name:   w.c.Name,
		Err:    fmt.Errorf("crashed %d times within %s, giving up (last: %s)", n, w.s.cfg.CrashWindow, p.exitStatus()),
		Output: p.logs.tail(),
	}
}

// send hands ev to the tracker unless the project is stopping.
func (w *watcher) send(ctx context.Context, ev event) bool {
	select {
	case w.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// maxBackoff caps the restart delay whatever MaxCrashes is.
const maxBackoff = 30 * time.Second

// backoff is base, doubled for each crash after the first, capped.
func backoff(base time.Duration, crashes int) time.Duration {
	d := base
	for i := 1; i < crashes && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}
