// Package webhook posts the webhook deliveries a twin's sessions queue
// (SPEC §14): each event a dialect's behaviour records goes to the
// session's endpoints that listen for it, signed as the provider signs
// (the dialect's dialect.Signer), after the request that caused it is
// answered.
//
// Deliveries of one session go out one at a time, in the order their
// events were made, from a goroutine that lives while the session has
// some to post; sessions do not wait for each other. Only loopback
// addresses are posted to unless a host is allowed (Options.Allow): a
// name is resolved and every address it resolves to is checked when the
// connection is made, so a name cannot point elsewhere between the check
// and the post. Every attempt is journaled in the session's journal. A
// failed attempt (no 2xx, refused, unreachable, timed out) is tried again
// on the session's clock, never on the wall clock: when the session's
// clock passes its next attempt time (Due), as Options.Retries schedules.
package webhook

import (
	"cmp"
	"context"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/session"
)

// Defaults of Options.
const (
	// DefaultTimeout bounds one attempt, from dialing to the answer's
	// last byte read.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxPending bounds what one session holds to post: queued
	// and waiting for a retry. A delivery past it is dropped, and
	// journaled as dropped.
	DefaultMaxPending = 1000
)

// DefaultRetries is when a failed delivery is tried again, after its
// first attempt, on the session's clock: after 1, 2, 4, 8, 16 and 32
// hours, its last attempt 63 hours after its first, within the three days
// over which Stripe retries in live mode with an exponential back-off.
var DefaultRetries = []time.Duration{1 * time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 16 * time.Hour, 32 * time.Hour}

// Store is the sessions' store (session.Store): attempts are journaled
// through its Begin, which keeps journals within their budget, and Get
// tells a session that is gone, whose deliveries are dropped.
type Store interface {
	Begin(s *session.Session, e *session.Entry, h http.Header)
	Get(name string) *session.Session
}

// Resolver resolves an endpoint's host (net.Resolver).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure a Deliverer.
type Options struct {
	// Signer signs each attempt (the twin's dialect); nil sends
	// deliveries unsigned.
	Signer dialect.Signer
	// Journal journals every attempt in its session. Required.
	Journal Store
	// Allow names hosts posted to beside loopback addresses
	// (--webhook-allow), compared without case and without port.
	Allow []string
	// Timeout bounds one attempt; 0 is DefaultTimeout.
	Timeout time.Duration
	// MaxPending bounds one session's deliveries to post; 0 is
	// DefaultMaxPending.
	MaxPending int
	// Retries are the delays, on the session's clock, from a delivery's
	// first attempt to each next one; nil is DefaultRetries, empty none.
	Retries []time.Duration
	// Now is the wall clock: signatures carry its time, and a session's
	// clock is read through it. nil is time.Now.
	Now func() time.Time
	// Own reports whether an address is the twin's own listener: a
	// delivery there is refused, so that a session cannot have the twin
	// post to its own API or control plane (an endpoint whose event's
	// delivery makes another event would never stop). nil refuses none.
	Own func(netip.AddrPort) bool
	// Resolver resolves host names; nil is net.DefaultResolver.
	Resolver Resolver
	// Logger is hclog.NewNullLogger() when nil.
	Logger hclog.Logger
}

// Deliverer posts sessions' deliveries (engine.Deliverer). Close it to
// stop: it cancels attempts under way and waits for its goroutines.
type Deliverer struct {
	o      Options
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	queues map[*session.Session]*queue
	swept  int // len(queues) after the last sweep (sweepLocked)
	closed bool
}

// queue is one session's deliveries.
type queue struct {
	now     []*job    // to post now, in order
	later   []*job    // failed, each waiting for the session's clock to pass its due
	running bool      // a goroutine posts now's
	idle    chan bool // closed once nothing is posted or to be posted now; nil while idle
	seq     uint64    // numbers jobs in the order they were queued
}

// held is how many deliveries q holds: to post, being posted, waiting.
func (q *queue) held() int {
	n := len(q.now) + len(q.later)
	if q.running {
		n++
	}
	return n
}

// job is one delivery and how far it got.
type job struct {
	d       dialect.Delivery
	seq     uint64
	attempt int   // attempts made
	first   int64 // the session time of its first attempt
	due     int64 // the session time its next attempt is due, once it failed
}

// New returns a Deliverer configured by o.
func New(o Options) *Deliverer {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.Retries == nil {
		o.Retries = DefaultRetries
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	o.Allow = slices.Clone(o.Allow)
	for i, h := range o.Allow {
		o.Allow[i] = strings.ToLower(h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &Deliverer{o: o, ctx: ctx, cancel: cancel, queues: map[*session.Session]*queue{}}
	d.client = &http.Client{
		Transport: &http.Transport{
			DialContext:           d.dial,
			TLSHandshakeTimeout:   o.Timeout,
			ResponseHeaderTimeout: o.Timeout,
			MaxIdleConnsPerHost:   2,
			IdleConnTimeout:       30 * time.Second,
		},
		Timeout: o.Timeout,
		// Stripe does not follow an endpoint's redirect: it is a failed
		// attempt, and the endpoint's answer says where it pointed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return d
}

// Deliver queues ds, which a request or a clock's tick of sess made, to
// be posted in order after what sess queued before. It never waits for
// a post.
func (d *Deliverer) Deliver(sess *session.Session, ds []dialect.Delivery) {
	var dropped []dialect.Delivery
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	q := d.queueOf(sess)
	for _, dl := range ds {
		if q.held() >= d.o.MaxPending {
			dropped = append(dropped, dl)
			continue
		}
		q.seq++
		q.now = append(q.now, &job{d: dl, seq: q.seq})
	}
	d.startLocked(sess, q)
	d.mu.Unlock()
	for _, dl := range dropped {
		d.journalDropped(sess, dl)
	}
}

// Due posts sess's failed deliveries whose next attempt is due at its
// session time now or before, in the order their events were made: the
// session's clock moved to now.
func (d *Deliverer) Due(sess *session.Session, now int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.queues[sess]
	if q == nil || d.closed {
		return
	}
	var due []*job
	q.later = slices.DeleteFunc(q.later, func(j *job) bool {
		if j.due <= now {
			due = append(due, j)
			return true
		}
		return false
	})
	if len(due) == 0 {
		return
	}
	q.now = append(q.now, due...)
	slices.SortFunc(q.now, func(a, b *job) int { return cmp.Compare(a.seq, b.seq) }) // the events' order
	d.startLocked(sess, q)
}

// Pending reports how many of sess's deliveries are to be posted now or
// wait for a retry.
func (d *Deliverer) Pending(sess *session.Session) (now, later int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if q := d.queues[sess]; q != nil {
		now, later = len(q.now), len(q.later)
		if q.running {
			now++ // the one being posted
		}
	}
	return now, later
}

// Wait returns once sess has nothing to post now (what waits for a retry
// waits for the session's clock, which only a request moves), or ctx's
// error when it ends first.
func (d *Deliverer) Wait(ctx context.Context, sess *session.Session) error {
	d.mu.Lock()
	q := d.queues[sess]
	if q == nil || !q.running {
		d.mu.Unlock()
		return nil
	}
	if q.idle == nil {
		q.idle = make(chan bool)
	}
	idle := q.idle
	d.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops posting: attempts under way are cancelled (and journaled
// as such), what is queued is dropped, and Close returns once every
// goroutine of d has returned.
func (d *Deliverer) Close() error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.cancel()
	d.wg.Wait()
	d.client.CloseIdleConnections()
	return nil
}

func (d *Deliverer) queueOf(sess *session.Session) *queue {
	q := d.queues[sess]
	if q == nil {
		d.sweepLocked()
		q = &queue{}
		d.queues[sess] = q
	}
	return q
}

// sweepLocked drops the retries of sessions deleted since (a deleted
// session's clock never moves again, so they would wait for ever), once
// the queues have doubled since the last sweep: a sweep visits every
// queue, and so costs each new queue a constant share.
func (d *Deliverer) sweepLocked() {
	if len(d.queues) < max(2*d.swept, 16) {
		return
	}
	for s, q := range d.queues {
		if !q.running && d.o.Journal.Get(s.Name()) != s {
			delete(d.queues, s)
		}
	}
	d.swept = len(d.queues)
}

// startLocked starts q's goroutine when it has work and none runs.
func (d *Deliverer) startLocked(sess *session.Session, q *queue) {
	if q.running || len(q.now) == 0 {
		if !q.running && len(q.now) == 0 && len(q.later) == 0 {
			delete(d.queues, sess) // a session with nothing to post costs nothing
		}
		return
	}
	q.running = true
	d.wg.Add(1)
	go d.run(sess, q)
}

// run posts q's jobs in order until none is left to post now.
func (d *Deliverer) run(sess *session.Session, q *queue) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		if len(q.now) == 0 || d.closed {
			q.running = false
			q.now = nil
			if q.idle != nil {
				close(q.idle)
				q.idle = nil
			}
			if len(q.later) == 0 || d.closed {
				delete(d.queues, sess)
			}
			d.mu.Unlock()
			return
		}
		j := q.now[0]
		q.now = q.now[1:]
		d.mu.Unlock()

		retry := d.attempt(sess, j)

		if retry {
			d.mu.Lock()
			q.later = append(q.later, j)
			d.mu.Unlock()
		}
	}
}
