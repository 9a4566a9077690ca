package server

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/control"
	"github.com/wraithdev/wraith/twin/dialect/dialects"
	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/observe"
	"github.com/wraithdev/wraith/twin/resolve"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

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
	if err := checkCompat(cfg, t); err != nil {
		return nil, err
	}
	cfg.Fixture = compatFixture(cfg, t)
	if cfg.Digest != "" && cfg.Digest != t.Digest {
		return nil, fmt.Errorf("twin %s has digest %s, but --digest pins %s: the twin changed; re-pin it or serve the pinned twin", t.Name(), t.Digest, cfg.Digest)
	}
	key, err := scrubKey(deps.Getenv, t.Digest)
	if err != nil {
		return nil, err
	}
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
	// The store is made here, configured whole, and handed to the engine:
	// the observer and the request log watch it too.
	state, err := openState(cfg, t, log)
	if err != nil {
		return nil, err
	}
	store := session.NewStoreWith(session.StoreOptions{
		MaxSessions:   cfg.MaxSessions,
		JournalLimit:  cfg.JournalLimit,
		JournalMemory: cfg.journalBudget(),
		Persister:     state.persister(),
	})
	// The dialect is looked up here, not by the engine, because the
	// deliverer signs as it does.
	dia, err := dialects.Lookup(t.Manifest.DialectName())
	if err != nil {
		state.close()
		return nil, err
	}
	own := &ownAddr{}
	hooks := newDeliverer(cfg, dia, store, deps.Now, log, own)
	eng, err := engine.New(t, engine.Options{
		Dialect:          dia,
		Webhooks:         hooks,
		UnknownEntity:    cfg.UnknownEntity,
		Validate:         cfg.Validation,
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
		Store:              store,
		MaxEntities:        cfg.MaxEntities,
		MaxBody:            cfg.MaxBody,
		MaxMemory:          cfg.MaxMemory,
		RateLimit:          cfg.RateLimit,
		FaultProfile:       cfg.FaultProfile,
		RequireProvisioned: cfg.RequireProvisioned,
		Now:                deps.Now,
		Logger:             log.Named("engine"),
	})
	if err == nil {
		err = state.restore(eng, t)
	}
	if err != nil {
		hooks.Close()
		state.close()
		// The serve-wide defaults are the flags': the control plane's
		// map of the engine's errors says which flag is at fault.
		switch p := control.Problem(err); p.Code {
		case apierr.FixtureNotFound:
			return nil, usagef("--fixture %q: %s", cfg.Fixture, p.Message)
		case apierr.FaultProfileNotFound:
			return nil, usagef("--fault-profile %q: %s", cfg.FaultProfile, p.Message)
		}
		return nil, err
	}
	s := &Server{cfg: cfg, deps: deps, log: log, twin: t, eng: eng, guard: access, state: state, hooks: hooks}
	obs := observe.New(store, deps.Now, eng.Routes()...)
	obs.AccountTo(store.Memory())
	logRequest := requestLog(log.Named("request"), deps.Now)
	// The watcher is set after the engine, not among the store's options:
	// the observer needs the engine's routes, which need the store.
	store.OnEntry(func(name string, e *session.Entry) {
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
	addr := hostguard.ListenAddr(cfg.Host, cfg.listenPort())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		hooks.Close()
		state.close()
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("port %d on %s is in use: pick another port, or use --port 0 for any free port", cfg.listenPort(), cfg.Host)
		}
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	own.add(ln.Addr())
	if bound := ln.Addr().(*net.TCPAddr).IP; access.loopback && !bound.IsLoopback() {
		// The name resolved to loopback a moment ago but the listener is
		// elsewhere: never serve an open control plane off loopback.
		if !access.token.Set() {
			ln.Close()
			hooks.Close()
			state.close()
			return nil, usagef("--host %s resolved to loopback but bound %s: bind --host 127.0.0.1, or set --control-token-env", cfg.Host, bound)
		}
		access.loopback = false
	}
	served, tlsConfig, err := compatListen(cfg, ln, log)
	if err != nil {
		ln.Close()
		hooks.Close()
		state.close()
		return nil, err
	}
	s.ln = served
	if sl, ok := served.(*sniffListener); ok {
		for _, a := range sl.Addrs()[1:] { // the first is ln's
			own.add(a)
		}
	}
	// Timeouts and header limits: see docs/security.md.
	s.srv = &http.Server{
		Handler:   compatHandler(cfg.Compat, s.handler()),
		TLSConfig: tlsConfig,
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

// scrubKey is WRAITH_HMAC_KEY when set, under the one rule `wraith record`
// keys by too (scrub.KeyFromEnv: at least 16 bytes, else a usage error): a
// short key is easy to guess, and whoever guesses it can test candidate
// values against served tokens. Unset, the key is derived from the twin's
// digest, so served tokens are the same in every process.
func scrubKey(getenv func(string) string, digest string) ([]byte, error) {
	if getenv("WRAITH_HMAC_KEY") == "" {
		return scrub.DeriveKey([]byte(digest)), nil
	}
	key, _, err := scrub.KeyFromEnv(getenv)
	if err != nil {
		return nil, &UsageError{err}
	}
	return key, nil
}
