package session

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/world"
)

// Session is one namespace. Its mutable state is reached only through
// Do, DoContext and ReadContext, which hold the session's lock: exclusive
// for anything that may change the state, shared for reads, which then run
// side by side.
type Session struct {
	name     string
	hdr      []string
	settings Settings // never changed: a session's settings are fixed when it is made

	mu          rwLock
	waiting     atomic.Int32 // requests in DoContext or ReadContext waiting for mu
	entities    atomic.Int64 // st's entity count as of the last exclusive release of mu, for readers that must not wait
	provisioned atomic.Bool
	st          State
	journal     Journal
	persist     Persister // the store's; nil outside a store
	last        Ack       // the persister's Ack of the session's last change; under mu, exclusive
}

// New returns a session starting from w.
func New(name string, set Settings, w *world.World, provisioned bool) *Session {
	s := &Session{name: name, hdr: []string{name}, settings: set}
	s.provisioned.Store(provisioned)
	s.st.init(set, w)
	s.publish()
	return s
}

// publish makes the state's entity count readable without the lock.
// Everything that changes the state holds the lock exclusive, so calling
// it before every exclusive unlock keeps Entities at most one locked
// section behind.
func (s *Session) publish() { s.entities.Store(int64(s.st.entityCount())) }

// Entities returns how many entities the session holds (its starting
// world under its changes) without waiting for its lock: the metrics
// read it while requests of the session run.
func (s *Session) Entities() int { return int(s.entities.Load()) }

// Name returns the session's name.
func (s *Session) Name() string { return s.name }

// Do runs fn with the session's state, holding its lock exclusive.
// When the store keeps sessions on disk, Do returns once what fn changed
// is durable; it returns an error wrapping ErrNotDurable if it never will
// be (the change stays in memory).
func (s *Session) Do(fn func(st *State)) error {
	s.mu.Lock()
	return wait(s.locked(fn))
}

// Hold runs fn holding s's lock exclusive, and neither tells the
// persister of anything nor waits for it: it is how a persister reads a
// session whole (a checkpoint) from the goroutine that syncs its
// records, which Do would have wait on itself.
func (s *Session) Hold(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock(true)
	fn()
}

// locked runs fn holding s's lock, which the caller took exclusive, and
// releases it, even if fn panics; it returns the persister's Ack of what
// fn changed, for the caller to wait on once the lock is free.
func (s *Session) locked(fn func(st *State)) (a Ack) {
	defer s.mu.Unlock(true)
	defer func() { a = s.settle() }()
	fn(&s.st)
	return
}

// DoContext is Do for a request: while another request holds the lock it
// waits only as long as ctx lives, and returns ctx's error without running
// fn when ctx ends first (the client went away, so nobody would read the
// answer). When the store keeps sessions on disk it returns once fn's
// change is durable, as Do does, so the caller answers only then.
func (s *Session) DoContext(ctx context.Context, fn func(st *State)) error {
	if err := s.lockContext(ctx, true); err != nil {
		return err
	}
	return wait(s.locked(fn))
}

// ReadContext is DoContext for a request that only reads the state: it
// holds the lock shared, beside other reads of the session, and hands fn
// a Reader, which has no method that changes the state.
//
// Reads and writes of a session are ordered with respect to each other:
// a write waits until the reads holding the lock are done, and reads
// that arrive while a write waits queue behind it.
func (s *Session) ReadContext(ctx context.Context, fn func(st Reader)) error {
	if err := s.lockContext(ctx, false); err != nil {
		return err
	}
	defer s.mu.Unlock(false)
	fn(view{&s.st})
	return nil
}

func (s *Session) lockContext(ctx context.Context, exclusive bool) error {
	s.waiting.Add(1)
	err := s.mu.LockContext(ctx, exclusive)
	s.waiting.Add(-1)
	return err
}

// Waiting returns how many requests wait in DoContext or ReadContext for
// the session. Only tests read it, and they need it: it is how a test in
// engine or server waits until a request is queued behind a busy session,
// a condition, rather than sleeping and hoping it is.
func (s *Session) Waiting() int { return int(s.waiting.Load()) }

// Settings returns the session's settings and whether it was provisioned
// explicitly. It never waits for the session's lock: settings are fixed
// when a session is made.
func (s *Session) Settings() (Settings, bool) {
	return s.settings, s.provisioned.Load()
}

// MarkProvisioned records that a provisioning call named this session with
// its current settings.
func (s *Session) MarkProvisioned() error {
	if !s.provisioned.Swap(true) {
		return wait(s.capture(Provisioned))
	}
	return nil
}

// Reset returns the session to its just-provisioned state: overlay and
// caches dropped, id generator reseeded, clock rewound. Like Do, it
// returns once that is durable.
func (s *Session) Reset() error {
	s.mu.Lock()
	mem, track, attacher := s.st.mem, s.st.track, s.st.attacher
	s.st.releaseReplays()
	s.st.init(s.settings, s.st.world) // drops the attachment: a reset session makes a new one
	s.st.mem, s.st.track, s.st.attacher = mem, track, attacher
	s.publish()
	s.journal.clear()
	a := s.capture(Reset)
	if a != nil {
		s.last = a
	}
	s.mu.Unlock(true)
	return wait(a)
}

// attach makes mem the account of what the session's journal and
// idempotency cache hold: the store calls it once, before the session is
// visible, so a fork's or a restored session's cache is counted too.
func (s *Session) attach(mem *Memory, p Persister) {
	s.persist = p
	s.st.track = p != nil
	s.journal.mem = mem
	s.st.mem = mem
	for k, r := range s.st.idem {
		s.st.idemBytes += replayCost(k, r)
	}
	mem.idem.Add(s.st.idemBytes)
}

// detach gives back to the store's account what the session held, once
// it is deleted; requests still in flight may journal more, which is no
// longer counted (the session is garbage once they end).
func (s *Session) detach() {
	s.mu.Lock()
	s.st.releaseReplays()
	s.st.mem = nil
	s.mu.Unlock(true)
	s.journal.mu.Lock()
	s.journal.forget()
	s.journal.mem = nil
	s.journal.mu.Unlock()
}

// Summary is what the session list shows of a session.
type Summary struct {
	Name        string
	Settings    Settings
	Provisioned bool
	Requests    uint64
	Entities    int
}

// Summary describes the session.
func (s *Session) Summary() Summary {
	s.mu.Lock()
	defer s.mu.Unlock(true)
	return Summary{
		Name:        s.name,
		Settings:    s.settings,
		Provisioned: s.provisioned.Load(),
		Requests:    s.st.requests.Load(),
		Entities:    s.st.entityCount(),
	}
}

// State is a session's mutable state. It is only reachable under the
// session's lock, exclusive: under the shared lock, several requests read
// it at once through a Reader, and what they all may advance, the clock
// and the request count, is atomic.
type State struct {
	world     *world.World
	overlay   overlay // changes: new, changed and deleted entities, shared with forks until written
	idem      map[string]*Replay
	rng       rand.PCG
	seq       uint64
	clock     Clock
	pos       atomic.Int64 // clock position in nanoseconds since the epoch
	requests  atomic.Uint64
	added     int   // entities in the overlay that are not in the world
	rateEnd   int64 // end of the current rate-limit window, unix nanoseconds
	rateCount int
	removed   int // world entities the overlay deletes
	counters  map[string]int64
	fault     faultState // see faults.go
	verbatim  []string   // Settings.PIIVerbatim, read on the request path
	mem       *Memory    // the store's account, which idem is charged to; nil outside a store
	idemBytes int64      // what idem holds, by replayCost
	changed   Change     // what the locked section changed, for the Persister (see mark)
	track     bool       // keep dirty and dirtyIdem: the store's persister asks (see capture.go)
	dirty     []*world.Entity
	dirtyIdem []string
	newest    map[string]*world.Entity // Newest's answers by resource, nil for none; written under the exclusive lock only
	orders    *orders                  // Visible's kept orders (order.go); never nil
	ext       dialect.Attachment       // made on first use (attach.go); nil until then
	attacher  dialect.Attacher         // the store's; nil outside a store, or for a twin without one
}

// Replay is a cached response for an Idempotency-Key.
type Replay struct {
	Fingerprint string
	Status      int
	Body        []byte
	Route       string
	Provenance  string
}

// seqBase keeps session-made entities newer than every world entity in
// list tie-breaks.
const seqBase = 1 << 32

func (st *State) init(set Settings, w *world.World) {
	*st = State{world: w, clock: set.Clock, fault: faultState{seed: set.Seed, profile: set.FaultProfile, rate: set.RateLimit}, verbatim: set.PIIVerbatim, orders: &orders{}}
	st.rng.Seed(set.Seed, 0x77726169746821) // the stream constant is arbitrary, fixed forever
	st.seq = seqBase
	st.pos.Store(min(max(set.Clock.BaseEpoch, 0), MaxEpoch) * int64(time.Second))
}

// copyFrom makes st a copy of src, for a fork. The overlay and maps are shared as they are; the
// fork replaces what it must not share.
func (st *State) copyFrom(src *State) {
	*st = State{
		world: src.world, overlay: src.overlay, idem: src.idem, rng: src.rng,
		seq: src.seq, clock: src.clock, added: src.added, rateEnd: src.rateEnd, rateCount: src.rateCount,
		removed: src.removed, counters: src.counters, fault: src.fault, verbatim: src.verbatim,
		attacher: src.attacher, orders: &orders{},
	}
	st.pos.Store(src.pos.Load())
	st.requests.Store(src.requests.Load())
}

// PIIVerbatim returns the PII-shaped fields the session serves as they
// are (Settings.PIIVerbatim); nil for none. Callers must not change it.
func (st *State) PIIVerbatim() []string { return st.verbatim }

func (st *State) entityCount() int {
	return st.world.Len() + st.added - st.removed
}

// World returns the session's starting world.
func (st *State) World() *world.World { return st.world }

// Begin marks the start of a business request and returns the session's
// time for it, in unix seconds. A deterministic clock advances by its step
// afterwards; a fixed clock does not move; a real clock is wall, the wall
// clock's time the request began at, read once for all it does. The
// count and the clock advance atomically, so requests holding the shared
// lock each get a tick of their own: distinct, in the order they began.
func (st *State) Begin(wall time.Time) int64 {
	st.requests.Add(1)
	switch st.clock.Mode {
	case ClockReal:
		return wall.Unix()
	case ClockDeterministic:
		return st.move(int64(st.clock.Step)) / int64(time.Second)
	default:
		return st.pos.Load() / int64(time.Second)
	}
}

// move advances the clock by d nanoseconds (d >= 0), never past MaxEpoch,
// and returns where it was.
func (st *State) move(d int64) int64 {
	for {
		p := st.pos.Load()
		if st.pos.CompareAndSwap(p, clampPos(p, d)) {
			return p
		}
	}
}

// Now returns the session's current time without advancing it.
func (st *State) Now(now func() time.Time) int64 {
	if st.clock.Mode == ClockReal {
		return now().Unix()
	}
	return st.pos.Load() / int64(time.Second)
}

// ClockMode returns the session's clock mode.
func (st *State) ClockMode() string { return st.clock.Mode }

// Advance moves a deterministic or fixed clock forward by secs, stopping
// at MaxEpoch.
func (st *State) Advance(secs int64) {
	st.mark(ClockMoved)
	if secs > MaxEpoch {
		secs = MaxEpoch
	}
	st.move(secs * int64(time.Second))
}

// SetEpoch moves a deterministic or fixed clock to epoch, at most MaxEpoch.
func (st *State) SetEpoch(epoch int64) {
	st.mark(ClockMoved)
	st.pos.Store(clampPos(0, min(epoch, MaxEpoch)*int64(time.Second)))
}

// clampPos returns pos+d for d >= 0, never past MaxEpoch.
func clampPos(pos, d int64) int64 {
	const maxPos = MaxEpoch * int64(time.Second)
	if d > maxPos-pos {
		return maxPos
	}
	return pos + d
}

// ChangeCount returns how many entities the session created, changed or
// deleted: the size of its overlay, which --max-entities bounds.
func (st *State) ChangeCount() int { return st.overlay.len() }

// Touched reports whether the session already holds its own version (or
// tombstone) of the entity with id.
func (st *State) Touched(id string) bool {
	_, ok := st.overlay.get(id)
	return ok
}

// ReplayCount returns how many idempotency keys the session remembers.
func (st *State) ReplayCount() int { return len(st.idem) }

// Get returns the entity with id as this session sees it: its own change
// first, then its starting world. A tombstone is returned as is (Deleted).
func (st *State) Get(id string) *world.Entity {
	if e, ok := st.overlay.get(id); ok {
		return e
	}
	return st.world.Get(id)
}

// Put records a new or changed entity. e must be a new value (a literal,
// or world.Entity.Copy changed), never an entity another session may
// see: it is immutable once put.
func (st *State) Put(e *world.Entity) {
	st.mark(Wrote)
	prev, inOverlay := st.overlay.get(e.ID)
	inWorld := st.world.Get(e.ID) != nil
	switch {
	case !inOverlay && !inWorld:
		st.added++
	case inOverlay && prev.Deleted && inWorld:
		st.removed--
	case inOverlay && prev.Deleted && !inWorld:
		st.added++
	}
	was := prev
	if !inOverlay {
		was = st.world.Get(e.ID)
	}
	st.overlay.put(e)
	st.noteOrder(was, e)
	st.noteEntity(e)
}

// Delete records that the entity with id is gone, keeping a tombstone so
// reads after delete answer as the provider does.
func (st *State) Delete(e *world.Entity) {
	st.mark(Wrote)
	prev, inOverlay := st.overlay.get(e.ID)
	if inOverlay && prev.Deleted {
		return
	}
	if st.world.Get(e.ID) != nil {
		st.removed++
	} else {
		st.added--
	}
	was := st.Get(e.ID)
	t := e.Copy()
	t.Deleted = true
	st.overlay.put(t)
	st.noteOrder(was, t)
	st.noteEntity(t)
}

// Next returns the next value of the named counter, 1 first. Counters
// number entities per parent (GitHub's issue numbers per repository); like
// ids they belong to the session and start over on reset.
func (st *State) Next(counter string) int64 {
	if st.counters == nil {
		st.counters = map[string]int64{}
	}
	st.counters[counter]++
	return st.counters[counter]
}

// NextSeq returns a sequence number for a new entity version.
func (st *State) NextSeq() uint64 {
	st.seq++
	return st.seq
}

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewID returns prefix followed by n characters from the session's seeded
// generator. Ids depend only on the seed and the order of creates in the
// session, never on its name.
func (st *State) NewID(prefix string, n int) string {
	b := make([]byte, len(prefix)+n)
	copy(b, prefix)
	for i := len(prefix); i < len(b); {
		v := st.rng.Uint64()
		for k := 0; k < 10 && i < len(b); k++ { // 62^10 < 2^64
			b[i] = idAlphabet[v%62]
			v /= 62
			i++
		}
	}
	return string(b)
}

// Changed returns the session's overlay entities of a resource: created,
// changed and deleted ones, in no particular order. It costs what the
// session changed of resource, however much it changed of others.
func (st *State) Changed(resource string) []*world.Entity {
	n := st.overlay.countOf(resource)
	if n == 0 {
		return nil
	}
	out := make([]*world.Entity, 0, n)
	st.overlay.eachOf(resource, func(e *world.Entity) { out = append(out, e) })
	return out
}

// Newest returns the entity of resource a list gives first (see
// world.Newer), nil for none. The first call for a resource looks at each
// of its entities once; the session then keeps the answer up to date as
// it writes, so that a session of a million events finds its newest
// without a pass over them (a Stripe event takes its API version from
// the newest). Only a write that takes away the newest (a delete of it,
// an update that makes it older) costs the next call a pass again.
func (st *State) Newest(resource string) *world.Entity {
	if e, ok := st.newest[resource]; ok {
		return e
	}
	e := st.findNewest(resource)
	if st.newest == nil {
		st.newest = map[string]*world.Entity{}
	}
	st.newest[resource] = e
	return e
}

// newestOf is Newest for a read under the shared lock, which may not
// write the session's state: it reads what a write left kept, or looks.
func (st *State) newestOf(resource string) *world.Entity {
	if e, ok := st.newest[resource]; ok {
		return e
	}
	return st.findNewest(resource)
}

// findNewest is Newest found in one pass over the resource's entities
// (eachVisible), without ordering them.
func (st *State) findNewest(resource string) *world.Entity {
	var best *world.Entity
	st.eachVisible(resource, func(e *world.Entity) {
		if best == nil || world.Newer(e, best) {
			best = e
		}
	})
	return best
}

// noteOrder keeps what the session keeps of its entities' order, Newest's
// answers and Visible's orders, true after e, a new version of its id,
// replaced was (nil for a new id).
func (st *State) noteOrder(was, e *world.Entity) {
	st.noteNewest(e)
	st.orders.note(was, e)
}

// noteNewest keeps Newest's kept answers true after e, a new version of
// its id, was written: a version newer than a resource's newest is its
// newest now, and an answer whose entity the write took away or made
// older is dropped, to be looked for again.
func (st *State) noteNewest(e *world.Entity) {
	for r, cur := range st.newest {
		switch {
		case r != e.Resource || e.Deleted:
			if cur != nil && cur.ID == e.ID {
				delete(st.newest, r)
			}
		case cur == nil || world.Newer(e, cur):
			st.newest[r] = e
		case cur.ID == e.ID:
			delete(st.newest, r)
		}
	}
}

// HasChanges reports whether the session changed any entity of resource
// (a deletion is a change). It costs a map lookup per fork layer, not a
// pass over the changes.
func (st *State) HasChanges(resource string) bool {
	return st.overlay.has(resource)
}

// Overlay calls fn for every changed entity, for debugging views.
func (st *State) Overlay(fn func(e *world.Entity)) {
	st.overlay.each(fn)
}

// Requests returns how many business requests the session served.
func (st *State) Requests() uint64 { return st.requests.Load() }

// Replay returns the cached response for an idempotency key.
func (st *State) Replay(key string) *Replay { return st.idem[key] }

// Remember caches a response for an idempotency key, and charges it to
// the store's memory account.
func (st *State) Remember(key string, r *Replay) {
	st.mark(Wrote)
	if st.idem == nil {
		st.idem = map[string]*Replay{}
	}
	if prev := st.idem[key]; prev != nil {
		st.charge(-replayCost(key, prev))
	}
	st.idem[key] = r
	st.charge(replayCost(key, r))
	st.noteReplay(key)
}

// replayCost is the estimate of what remembering r under key holds: the
// key, the answer and the fingerprint, the struct and a map slot.
func replayCost(key string, r *Replay) int64 {
	const base = int64(unsafe.Sizeof(Replay{})) + 64
	return base + int64(len(key)+len(r.Fingerprint)+cap(r.Body)+len(r.Route)+len(r.Provenance))
}

func (st *State) charge(n int64) {
	st.idemBytes += n
	if st.mem != nil {
		st.mem.idem.Add(n)
	}
}

// releaseReplays gives back to the store's account what the cache holds,
// before the cache is dropped.
func (st *State) releaseReplays() {
	if st.mem != nil {
		st.mem.idem.Add(-st.idemBytes)
	}
	st.idemBytes = 0
}

// HeaderValue returns the session's name as a header value, built once.
func (s *Session) HeaderValue() []string { return s.hdr }

// Allow counts a request against a fixed-window rate limit of limit
// requests per window, on the wall clock. When the window is full it
// returns false and the whole seconds until it ends.
func (st *State) Allow(now time.Time, limit int, window time.Duration) (bool, int) {
	t := now.UnixNano()
	if t >= st.rateEnd {
		st.rateEnd = t - t%int64(window) + int64(window)
		st.rateCount = 0
	}
	if st.rateCount >= limit {
		wait := (st.rateEnd - t + int64(time.Second) - 1) / int64(time.Second)
		return false, int(wait)
	}
	st.rateCount++
	return true, 0
}
