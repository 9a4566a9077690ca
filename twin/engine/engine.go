// Package engine answers a twin's application requests: it matches a
// request to a route, finds the caller's session, and applies the Twin
// Response Contract (handler, fixture, recorded, template, miss), saying
// where every answer came from.
//
// The engine serves every twin the same way. Where providers differ (how
// parameters are read and stored, lists enveloped and paged, ids minted,
// credentials read, refusals worded and shaped) it asks the twin's
// dialect (package dialect); it knows no provider itself.
//
// An Engine is built once from a loaded twin, which package compiled
// turns into everything that can be prepared ahead: recorded answers
// compacted and their headers built, routes compiled into a trie, starting
// worlds built per fixture set. This package is the request path: a
// request costs a route match, a session lookup in a sync.Map and the
// session's own lock, held shared by reads (which run side by side) and
// exclusive by writes.
//
// Its files follow a request. serve.go reads it (ServeHTTP); sources.go
// names its session; limits.go refuses what passes the request limits,
// before the session's lock; faulted.go applies the session's rate limit
// and fault profile; dispatch.go picks the handler and replays idempotent
// writes; capacity.go checks a write's room. One file per handler kind
// follows (create.go, update.go, read.go, list.go, members.go), then what
// the handlers share, in the order a write uses it: params.go (parameters
// decoded and set), pii.go (personal data tokenized), keys.go (ids, keys,
// addresses, scopes), nested.go (nested defaults, expansions), rules.go
// (rules, declines, computed fields), save.go (the entity kept),
// refusals.go (answers in the provider's shape), respond.go (the answer
// written) and journal.go (the request journaled). sessions.go and
// fork.go are what the control plane asks of the engine.
package engine

import (
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/dialect/dialects"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// Unknown-entity policies.
const (
	Synthesize = "synthesize"
	NotFound   = "not_found"
)

// Request validation modes (SPEC §13): Strict refuses a request its
// twin's description refuses, in the dialect's words; Warn serves it and
// says what is wrong in X-Wraith-Invalid; Off checks nothing.
const (
	Strict = "strict"
	Warn   = "warn"
	Off    = "off"
)

// ValidModes are the request validation modes, Strict first.
var ValidModes = []string{Strict, Warn, Off}

// Options configure an Engine.
type Options struct {
	// UnknownEntity is Synthesize (default) or NotFound.
	UnknownEntity string
	// Validate is how requests are checked against the twin's request
	// schemas: Strict (default), Warn or Off.
	Validate string
	// Defaults are the settings of sessions created by a first request.
	// Defaults.Fixture is a fixture name as a user gives it.
	Defaults session.Settings
	// NoControlHeaders drops the X-Wraith-* headers from app responses.
	NoControlHeaders bool
	// Dialect is how the twin's provider speaks; nil is the dialect
	// twin.toml names (dialects.Lookup).
	Dialect dialect.Dialect
	// Webhooks posts the webhook deliveries the dialect's behaviour
	// queues (world.go); nil posts none.
	Webhooks Deliverer
	// Scrubber tokenizes PII in synthesized answers. Required.
	Scrubber *scrub.Scrubber
	// Import loads a twin whose fixture sets this twin imports.
	Import func(name string) (*format.Twin, error)
	// Store holds the sessions; the caller configures it (limits,
	// journals, persistence). Nil makes a store of MaxSessions sessions
	// and defaults, for engines built outside a server.
	Store *session.Store
	// MaxSessions bounds the number of live sessions (0 = no limit) of
	// the store New makes when Store is nil; a given Store has its own.
	MaxSessions int
	// MaxEntities bounds the entities a session creates, changes or
	// deletes, and the idempotency keys it remembers (0 = no limit).
	MaxEntities int
	// MaxBody is the largest request body the server lets through, and so
	// the largest an entity may grow to through any update (0 = no limit).
	MaxBody int64
	// MaxMemory is a soft limit on the live heap in bytes: past it, writes
	// that would store more are refused with 507 memory-limit while reads
	// keep working (0 = no limit).
	MaxMemory int64
	// RateLimit is the default per-session limit, "N/s" or "N/m"; empty
	// for none. Defaults.RateLimit, when set, wins.
	RateLimit string
	// FaultProfile is the default sessions' fault profile; "" or "none"
	// for none. Defaults.FaultProfile, when set, wins.
	FaultProfile string
	// RequireProvisioned refuses an application request to a session that
	// does not exist (ErrNotProvisioned) instead of creating it with
	// Defaults, so that a harness that provisions first sees a request
	// that reached the wrong replica, or a replica that lost its
	// sessions, as an error rather than as a fresh world.
	RequireProvisioned bool
	// Now is the wall clock; nil means time.Now.
	Now    func() time.Time
	Logger hclog.Logger
}

// Engine serves one twin's application routes.
type Engine struct {
	twin     *compiled.Twin // read-only: see package compiled
	opts     Options
	dialect  dialect.Dialect
	decoder  dialect.Decoder  // the dialect's own parameter decoding; nil: package canon's
	namer    namer            // the dialect's objects for what writes name by name; nil: none
	handler  dialect.Handler  // the dialect's own answers for some routes (handled.go); nil: none
	protocol dialect.Protocol // the dialect's own protocol beside its API (protocol.go); nil: none
	ticker   dialect.Ticker   // the dialect's work as a session's clock moves (world.go); nil: none
	// completer completes a new entity before it is kept (create.go); nil: none.
	completer dialect.Completer
	now       func() time.Time
	// realWall says now is time.Now: a request's wall time is then the
	// time it began at, read once (wallAt).
	realWall bool
	log      hclog.Logger
	scrub    *scrub.Scrubber
	store    *session.Store
	defaults session.Settings
	age      ageHeader
	spent    []sync.Pool // per resource (Resource.Index), the *object.Object creates are done with; see startCreate
	scratch  sync.Pool   // *[]byte buffers for encoding entities
	heap     heapGauge

	expander dialect.Expander // the dialect's answer-time expansion (expand.go); nil: none
	filterer dialect.Filterer // the dialect's own list filters (list.go); nil: none
	// expandable are the resources' expandable fields, by resource name
	// (expand.go).
	expandable map[string]map[string]string
}

// New builds an engine for t.
func New(t *format.Twin, opts Options) (*Engine, error) {
	if opts.Scrubber == nil {
		return nil, fmt.Errorf("engine: a scrubber is required")
	}
	if opts.UnknownEntity == "" {
		opts.UnknownEntity = Synthesize
	}
	if opts.UnknownEntity != Synthesize && opts.UnknownEntity != NotFound {
		return nil, fmt.Errorf("unknown-entity policy %q: want %q or %q", opts.UnknownEntity, Synthesize, NotFound)
	}
	switch opts.Validate {
	case "":
		opts.Validate = Strict
	case Strict, Warn, Off:
	default:
		return nil, fmt.Errorf("validation mode %q: want %q, %q or %q", opts.Validate, Strict, Warn, Off)
	}
	realWall := opts.Now == nil
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Dialect == nil {
		d, err := dialects.Lookup(t.Manifest.DialectName())
		if err != nil {
			return nil, fmt.Errorf("twin %s: %w", t.Name(), err)
		}
		opts.Dialect = d
	}
	e := &Engine{
		opts:     opts,
		dialect:  opts.Dialect,
		now:      opts.Now,
		realWall: realWall,
		log:      opts.Logger,
		scrub:    opts.Scrubber,
		store:    opts.Store,
		spent:    make([]sync.Pool, len(t.Manifest.Resources)),
	}
	e.decoder, _ = opts.Dialect.(dialect.Decoder)
	e.namer, _ = opts.Dialect.(namer)
	e.handler, _ = opts.Dialect.(dialect.Handler)
	e.protocol, _ = opts.Dialect.(dialect.Protocol)
	e.ticker, _ = opts.Dialect.(dialect.Ticker)
	e.completer, _ = opts.Dialect.(dialect.Completer)
	e.expander, _ = opts.Dialect.(dialect.Expander)
	e.filterer, _ = opts.Dialect.(dialect.Filterer)
	e.expandable = expandableFields(t)
	if e.store == nil {
		e.store = session.NewStore(opts.MaxSessions)
	}
	if at, ok := opts.Dialect.(dialect.Attacher); ok {
		e.store.SetAttacher(at)
	}
	e.age.recordedAt = t.RecordedAt
	var err error
	// What writes start from is scrubbed once, as the twin is compiled
	// (see scrubbed).
	if e.twin, err = compiled.Compile(t, compiled.Options{Dialect: opts.Dialect, Scrub: e.scrubObject, Import: opts.Import}); err != nil {
		return nil, err
	}
	def := opts.Defaults
	if err := e.faultDefaults(&def); err != nil {
		return nil, err
	}
	if def.Fixture != "" {
		q, err := e.QualifyFixture(def.Fixture)
		if err != nil {
			return nil, err
		}
		def.Fixture = q
	}
	e.defaults = def
	return e, nil
}
