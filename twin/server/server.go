package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/oklog/run"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/control"
	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/observe"
	"github.com/wraithdev/wraith/twin/resolve"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/ui"
)

// Deps are the outside world a server uses.
type Deps struct {
	Logger  hclog.Logger
	Getenv  func(string) string
	Dir     string // working directory, for twin resolution
	Version string
	// ReadyWriter receives the ready line when --ready-fd is set.
	ReadyWriter io.Writer
	// ParentAlive, when set, is read until EOF; EOF means the parent died
	// and the server shuts down.
	ParentAlive io.Reader
	// Now is the wall clock; nil means time.Now.
	Now func() time.Time
	// Resolve looks up the addresses of a --host name, to tell whether it
	// is loopback; nil means the system resolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Server is a bound, not yet serving, twin server.
type Server struct {
	cfg     Config
	deps    Deps
	log     hclog.Logger
	twin    *format.Twin
	eng     *engine.Engine
	ctl     *control.Handler
	guard   *guard
	ln      net.Listener
	srv     *http.Server
	started time.Time
	// wrote is the ready document as written to --ready-json, so that at
	// exit the file is removed only while it is still ours.
	wrote []byte
}

// Open resolves and loads the twin, builds its engine, and binds the
// listener. Configuration mistakes are *UsageError. Start from the
// defaults that Flags fills in, not from a zero Config.
func Open(cfg Config, deps Deps) (*Server, error) {
	if err := checkInputs(cfg, deps); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Logger == nil {
		deps.Logger = hclog.NewNullLogger()
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Resolve == nil {
		deps.Resolve = defaultResolver
	}
	log := deps.Logger
	if err := removeStale(cfg.ReadyJSON); err != nil {
		return nil, err
	}
	access, err := controlAccess(cfg, deps.Getenv, deps.Resolve)
	if err != nil {
		return nil, err
	}
	res := resolve.New(deps.Dir, deps.Getenv("WRAITH_TWINS_PATH"), embedded.FS())
	src, err := res.Resolve(cfg.Twin)
	if err != nil {
		if errors.Is(err, resolve.ErrNotFound) {
			return nil, &UsageError{err}
		}
		return nil, err
	}
	if w := src.ShadowWarning(); w != "" {
		log.Warn(w)
	}
	t, err := src.Load()
	if err != nil {
		return nil, err
	}
	if cfg.Digest != "" && cfg.Digest != t.Digest {
		return nil, fmt.Errorf("twin %s has digest %s, but --digest pins %s: the twin changed; re-pin it or serve the pinned twin", t.Name(), t.Digest, cfg.Digest)
	}
	if w := scrub.ShortKeyWarning(deps.Getenv); w != "" {
		log.Warn(w)
	}
	key := scrubKey(deps.Getenv, t.Digest)
	// --pii-verbatim adds to the twin's own policy, so an embedded twin
	// needs no unpacking (and keeps its digest) to serve a field as is.
	verbatim := append(slices.Clip(t.Manifest.PII.Verbatim), cfg.PIIVerbatim...)
	scr := scrub.New(key, scrub.Policy{Fields: t.Manifest.PII.Fields, Verbatim: verbatim})
	defaults := session.Settings{
		Fixture: cfg.Fixture,
		Seed:    uint64(cfg.Seed),
		Clock:   session.Clock{Mode: cfg.Clock, BaseEpoch: cfg.ClockEpoch, Step: cfg.ClockStep},
	}
	if !cfg.ClockEpochSet {
		defaults.Clock.BaseEpoch = t.RecordedAt.Unix()
		if t.RecordedAt.IsZero() {
			defaults.Clock.BaseEpoch = 0
		}
	}
	eng, err := engine.New(t, engine.Options{
		UnknownEntity:    cfg.UnknownEntity,
		Defaults:         defaults,
		NoControlHeaders: cfg.NoControlHeaders,
		Scrubber:         scr,
		Import: func(name string) (*format.Twin, error) {
			s, err := res.Resolve(name)
			if err != nil {
				return nil, err
			}
			return s.Load()
		},
		MaxSessions:  cfg.MaxSessions,
		MaxEntities:  cfg.MaxEntities,
		MaxBody:      cfg.MaxBody,
		MaxMemory:    cfg.MaxMemory,
		RateLimit:    cfg.RateLimit,
		FaultProfile: cfg.FaultProfile,
		Now:          deps.Now,
		Logger:       log.Named("engine"),
	})
	if err != nil {
		var fe *engine.FixtureError
		if errors.As(err, &fe) {
			return nil, usagef("--fixture %q: %v", cfg.Fixture, fe)
		}
		var pe *engine.ProfileError
		if errors.As(err, &pe) {
			return nil, usagef("--fault-profile %q: %v", cfg.FaultProfile, pe)
		}
		return nil, err
	}
	s := &Server{cfg: cfg, deps: deps, log: log, twin: t, eng: eng, guard: access}
	eng.Store().SetJournalLimit(cfg.JournalLimit)
	obs := observe.New(eng.Store(), deps.Now)
	logRequest := requestLog(log.Named("request"))
	eng.Store().OnEntry(func(name string, e *session.Entry) {
		obs.Observe(name, e)
		logRequest(name, e)
	})
	s.ctl = control.New(eng, control.Options{
		Debug:    cfg.Debug,
		Version:  deps.Version,
		Settings: s.settings(),
		Logger:   log.Named("control"),
		Now:      deps.Now,
		Observer: obs,
	})
	addr := hostguard.ListenAddr(cfg.Host, cfg.Port)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("port %d on %s is in use: pick another port, or use --port 0 for any free port", cfg.Port, cfg.Host)
		}
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if bound := ln.Addr().(*net.TCPAddr).IP; access.loopback && !bound.IsLoopback() {
		// The name resolved to loopback a moment ago but the listener is
		// elsewhere: never serve an open control plane off loopback.
		if !access.token.Set() {
			ln.Close()
			return nil, usagef("--host %s resolved to loopback but bound %s: bind --host 127.0.0.1, or set --control-token-env", cfg.Host, bound)
		}
		access.loopback = false
	}
	s.ln = ln
	// Timeouts and header limits: see docs/security.md.
	s.srv = &http.Server{
		Handler: s.handler(),
		// No WriteTimeout: net/http would set a write deadline (a timer)
		// on every request, and a client that stops reading its answers
		// ties up only its own connection.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.Named("http").StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
	}
	return s, nil
}

// checkInputs reports what an embedding program left out, which the
// command-line shells always fill in, before anything would trip on it.
func checkInputs(cfg Config, deps Deps) error {
	var errs []error
	if cfg.Twin == "" {
		errs = append(errs, errors.New("Config.Twin is empty: name the twin to serve, as `wraith serve TWIN` takes it (checkout, a folder, a .twin file)"))
	}
	if cfg.Grace <= 0 {
		errs = append(errs, fmt.Errorf("Config.Grace is %s: set how long in-flight requests may finish at shutdown (--shutdown-grace, 5s by default); start from the Config that server.Flags returns", cfg.Grace))
	}
	if deps.Getenv == nil {
		errs = append(errs, errors.New("Deps.Getenv is nil: pass os.Getenv, or func(string) string { return \"\" } for an empty environment"))
	}
	if len(errs) > 0 {
		return &UsageError{fmt.Errorf("server.Open: %w", errors.Join(errs...))}
	}
	return nil
}

// scrubKey is WRAITH_HMAC_KEY when set; otherwise a key derived from the
// twin's digest, so served tokens are the same in every process.
func scrubKey(getenv func(string) string, digest string) []byte {
	if k := getenv("WRAITH_HMAC_KEY"); k != "" {
		return []byte(k)
	}
	return scrub.DeriveKey([]byte(digest))
}

// Engine returns the server's engine.
func (s *Server) Engine() *engine.Engine { return s.eng }

// Addr returns the bound address.
func (s *Server) Addr() *net.TCPAddr { return s.ln.Addr().(*net.TCPAddr) }

// URL returns the base URL of the bound listener.
func (s *Server) URL() string {
	return "http://" + net.JoinHostPort(s.Addr().IP.String(), strconv.Itoa(s.Addr().Port))
}

// handler routes control requests through the guard to the control plane
// and everything else to the engine, bounding bodies.
func (s *Server) handler() http.Handler {
	max := s.cfg.MaxBody
	page := ui.New(s.deps.Now())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			fail := apierr.Errorf(apierr.BodyTooLarge, "request body is %d bytes; the limit is %d (--max-body)", r.ContentLength, max)
			if strings.HasPrefix(r.URL.Path, control.Prefix) {
				apierr.Write(w, fail)
			} else {
				s.eng.Refuse(w, r, fail) // counted by coverage and metrics
			}
			return
		}
		// A declared length is already what net/http reads at most, and
		// it was checked above; only a chunked body needs a limit here.
		if r.ContentLength < 0 {
			r.Body = http.MaxBytesReader(w, r.Body, max)
		}
		if strings.HasPrefix(r.URL.Path, control.Prefix) {
			switch {
			case !s.guard.allow(w, r):
			case ui.Owns(r.URL.Path):
				page.ServeHTTP(w, r)
			default:
				s.ctl.ServeHTTP(w, r)
			}
			return
		}
		if r.Method == http.MethodHead {
			r = asGet(r)
		}
		s.eng.ServeHTTP(w, r)
	})
}

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
	s.removeReady()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		s.log.Info("stopped", "reason", context.Cause(ctx).Error())
		return nil
	}
	return err
}

// publish marks the server ready and writes the ready document where asked.
func (s *Server) publish() error {
	s.started = s.deps.Now()
	s.ctl.SetReady(true)
	doc := s.Ready()
	if s.cfg.ReadyJSON != "" {
		b, err := ipc.Marshal(doc)
		if err != nil {
			return err
		}
		if err := ipc.WriteFileAtomic(s.cfg.ReadyJSON, b, 0o644); err != nil {
			return err
		}
		s.wrote = b
	}
	if s.deps.ReadyWriter != nil {
		if err := ipc.Write(s.deps.ReadyWriter, doc); err != nil {
			// Whoever waits for the line would wait in vain: stop now.
			return fmt.Errorf("--ready-fd: %w: the parent closed its end of the descriptor or went away, so nobody can learn that this twin serves; stopping", err)
		}
		if c, ok := s.deps.ReadyWriter.(io.Closer); ok {
			c.Close()
		}
	}
	s.log.Info("serving", "twin", s.twin.Name(), "url", s.URL(), "digest", s.twin.Digest)
	return nil
}

// removeStale removes a ready document an earlier run left at path,
// before anything binds: a script that waits for the file must never read
// a dead server's URL.
func removeStale(path string) error {
	if path == "" {
		return nil
	}
	err := os.Remove(path)
	if err == nil || errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("--ready-json %s: remove the ready document an earlier run left: %w", path, err)
}

// removeReady removes the ready document at exit, unless another process
// has since written its own there.
func (s *Server) removeReady() {
	if s.wrote == nil {
		return
	}
	if b, err := os.ReadFile(s.cfg.ReadyJSON); err != nil || !bytes.Equal(b, s.wrote) {
		return
	}
	if err := os.Remove(s.cfg.ReadyJSON); err != nil {
		s.log.Warn("could not remove the ready document", "path", s.cfg.ReadyJSON, "error", err)
	}
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

// Ready returns the ready document.
func (s *Server) Ready() ipc.Ready {
	auth := "none"
	if s.cfg.ControlTokenEnv != "" {
		auth = "bearer"
	}
	at := ""
	if !s.twin.RecordedAt.IsZero() {
		at = s.twin.RecordedAt.UTC().Format(time.RFC3339)
	}
	return ipc.Ready{
		ReadyVersion:  ipc.Version,
		WraithVersion: s.deps.Version,
		Serve: ipc.Serve{
			Twin:           s.twin.Name(),
			URL:            s.URL(),
			Host:           s.Addr().IP.String(),
			Port:           s.Addr().Port,
			PID:            os.Getpid(),
			SessionHeader:  ipc.SessionHeader,
			SessionSources: engine.SessionSources,
			Digest:         s.twin.Digest,
			RecordedAt:     at,
			TwinAgeSeconds: s.eng.TwinAge(s.deps.Now()),
			Settings:       s.settings(),
			ControlAuth:    auth,
			Control:        ipc.ControlPaths(),
		},
	}
}

func (s *Server) settings() ipc.Settings {
	def := s.eng.Defaults()
	set := ipc.Settings{
		Seed:          def.Seed,
		Clock:         def.Clock.Mode,
		ClockStep:     def.Clock.Step.String(),
		UnknownEntity: s.cfg.UnknownEntity,
		Debug:         s.cfg.Debug,
		MaxSessions:   s.cfg.MaxSessions,
		MaxEntities:   s.cfg.MaxEntities,
	}
	if def.Fixture != "" {
		f := s.cfg.Fixture
		set.Fixture = &f
	}
	if def.Clock.Mode != session.ClockReal {
		e := def.Clock.BaseEpoch
		set.ClockEpoch = &e
	}
	if s.cfg.FaultProfile != "" {
		f := s.cfg.FaultProfile
		set.FaultProfile = &f
	}
	if s.cfg.RateLimit != "" {
		r := s.cfg.RateLimit
		set.RateLimit = &r
	}
	return set
}
