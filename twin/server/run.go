package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/oklog/run"
)

// Run serves until ctx ends or the parent goes away, then drains
// in-flight requests within the grace period. A stop because ctx ended is
// a clean exit (nil); the caller says why through the context's cause
// (signal.NotifyContext names the signal).
func (s *Server) Run(ctx context.Context) error {
	// Once any actor ends, the server is shutting down: the gate then
	// keeps a late ready line from telling a parent it serves.
	gate := &readyGate{}
	var g run.Group
	add := func(execute func() error, interrupt func(error)) {
		g.Add(func() error {
			defer gate.shut()
			return execute()
		}, interrupt)
	}
	{
		add(func() error {
			err := s.srv.Serve(s.ln)
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return err
		}, func(error) {
			s.ctl.SetReady(false)
			sctx, cancel := context.WithTimeout(context.Background(), s.cfg.Grace)
			defer cancel()
			if err := s.srv.Shutdown(sctx); err != nil {
				s.log.Warn("in-flight requests did not finish within the grace period", "grace", s.cfg.Grace)
				s.srv.Close()
			}
		})
	}
	{
		add(run.ContextHandler(ctx))
	}
	{
		// Publish readiness once the serve loop is running, unless a stop
		// was already decided (the parent gone, ctx done).
		done := make(chan struct{})
		add(func() error {
			if err := gate.publish(ctx, s.publish); err != nil {
				return err
			}
			<-done
			return nil
		}, func(error) { close(done) })
	}
	if s.deps.ParentAlive != nil {
		done := make(chan struct{})
		add(func() error {
			eof := make(chan struct{})
			go func() {
				io.Copy(io.Discard, s.deps.ParentAlive)
				close(eof)
			}()
			select {
			case <-eof:
				s.log.Info("parent went away (standard input closed); shutting down")
				return nil
			case <-done:
				return nil
			}
		}, func(error) { close(done) })
	}
	err := g.Run()
	s.withdraw()
	s.hooks.Close() // once no request can queue a delivery: cancels attempts under way, waits for them
	if cerr := s.state.close(); cerr != nil {
		s.log.Error("closing the state folder", "error", cerr)
		err = errors.Join(err, cerr)
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		s.log.Info("stopped", "reason", context.Cause(ctx).Error())
		return nil
	}
	return err
}

// readyGate orders publishing the ready document against the decision to
// shut down, so a twin never announces itself after it began stopping.
type readyGate struct {
	mu     sync.Mutex
	closed bool
}

// shut records that the server is shutting down.
func (g *readyGate) shut() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// publish runs pub unless the server is shutting down or ctx has ended.
func (g *readyGate) publish(ctx context.Context, pub func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || ctx.Err() != nil {
		return nil
	}
	return pub()
}
