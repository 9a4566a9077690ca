package dialect

import (
	"net/http"

	"github.com/wraithdev/wraith/twin/object"
)

// World is a write's view of its session's entities, for a Handler whose
// provider changes more on a write than the request's own entity: Stripe's
// confirm makes a charge and a balance transaction, a refund changes its
// charge, a renewal makes an invoice. Its changes are the request's own:
// made under the session's exclusive lock, kept, forked, snapshotted and
// digested with the session's other entities. Ids are the session's, so
// the same requests on the same seed make the same world.
type World interface {
	// Has reports whether the twin declares resource: a twin recorded
	// from a provider declares only some of its resources, and an effect
	// on one it lacks is left out.
	Has(resource string) bool
	// Get is the session's entity of resource with id, as a read finds
	// it (created or changed in the session, seeded, or observed in the
	// recordings); nil when the session has none.
	Get(resource, id string) []byte
	// Each calls fn with the session's entities of resource, newest
	// first, as a list finds them, until fn returns false.
	Each(resource string, fn func(body []byte) bool)
	// Newest is the body of the entity Each gives first, nil for none: the
	// latest of resource, found without ordering them all.
	Newest(resource string) []byte
	// New is a new entity of resource, not yet kept and the caller's to
	// change: its skeleton with a fresh id from the session's generator
	// and its timestamps at Now.
	New(resource string) (*object.Object, error)
	// Put keeps body, a JSON object, as the session's entity of resource
	// with id, new or changed. It refuses a resource the twin lacks, an
	// empty id and an id the session holds as another resource; body is the caller's to make valid (the engine reads it
	// again only for the fields it computes).
	Put(resource, id string, body []byte) error
	// NewID is a fresh id with prefix from the session's generator, for
	// what is no entity of its own (a request's id, a nested object's).
	NewID(prefix string) string
	// Now is the session's time, in unix seconds.
	Now() int64
	// Deliver queues a delivery of an event to an endpoint, made once the
	// request is answered (package twin/webhook).
	Deliver(d Delivery)
}

// Delivery is one event to post to one endpoint, signed as the provider
// signs (the dialect's Signer).
type Delivery struct {
	// URL is the endpoint's.
	URL string
	// Secret is the endpoint's signing secret.
	Secret string
	// Event names the event delivered (its id), for the journal.
	Event string
	// Header is the provider's own headers beside the signature
	// (GitHub's X-GitHub-Event), nil for none.
	Header http.Header
	// Body is the event as posted.
	Body []byte
}

// Signer is what a dialect implements when it delivers webhooks: it signs
// a delivery's body with the endpoint's secret at the wall-clock time of
// the attempt (unix seconds), setting the signature's headers.
type Signer interface {
	Sign(h http.Header, secret string, body []byte, at int64)
}

// Ticker is what a dialect implements when time passing does work in a
// session: renewals, trial ends and retries fall due when the session's
// clock moves (POST /__wraith/session/{id}/clock, or the provider's own
// test clocks). The engine calls Tick under the session's exclusive lock
// after the clock moved from from to to (unix seconds); Tick runs, in
// order, what fell due in between.
type Ticker interface {
	Tick(w World, from, to int64)
}

// Clock is what a Handler may do with the session's clock: the provider's
// own way of moving it (Stripe's test clocks). A write's Call has one.
type Clock interface {
	// AdvanceTo moves the session's clock to unix time t, running the
	// work that falls due on the way (Ticker), and reports whether the
	// clock could move (a session on the real clock cannot; nor can a
	// clock go back).
	AdvanceTo(t int64) bool
}
