package dialect

import (
	"context"
	"net/http"
)

// Attachment is state a session holds beside its entities, which the
// engine does not model: a dialect's own (GitHub's git repositories). The
// session makes it lazily (Attacher.NewAttachment), forks it with the
// session, drops it on reset and writes it into the session's snapshot.
// Its methods must be safe for concurrent use: a session's reads run side
// by side under its shared lock.
type Attachment interface {
	// Fork returns an independent copy: writes on either side stay on
	// that side. It should share what it can, as the session's entities
	// are shared copy-on-write.
	Fork() Attachment
	// Snapshot is the attachment as bytes, which RestoreAttachment reads
	// back; the same state always gives the same bytes.
	Snapshot() ([]byte, error)
	// Size is the bytes the attachment holds on its own (not shared with
	// a fork), for the session's accounting.
	Size() int64
}

// Attacher is what a dialect implements when its sessions hold an
// Attachment. The engine asserts it once.
type Attacher interface {
	// NewAttachment makes a session's empty attachment.
	NewAttachment() Attachment
	// RestoreAttachment reads what Attachment.Snapshot wrote. data comes
	// from outside (a snapshot document): it must be checked, not trusted.
	RestoreAttachment(data []byte) (Attachment, error)
}

// Handler is what a dialect implements when it answers some routes
// itself, from its Attachment, rather than from the twin's resources and
// templates (GitHub's contents, git data and commits, from the session's
// git repositories). The engine asserts it once and asks it about every
// request that passed validation, before its own handler.
type Handler interface {
	// Handles reports whether the dialect may answer route (a Call's
	// Route), so that the engine decodes parameters only for those.
	Handles(route string) bool
	// Handle answers c, or declines (ok false): the engine then serves
	// the request as it would without the dialect.
	Handle(c *Call) (a Answer, ok bool)
	// Follows reports whether the dialect hears of route's writes
	// (Answered), so that the engine builds a Call only for those.
	Follows(route string) bool
	// Answered tells the dialect of a write the engine answered itself
	// with a 2xx, so that the dialect's state follows the entity's (a
	// repository created with auto_init gets its first commit, a merged
	// pull request's commits reach its base). It returns the answer's body
	// completed with what the dialect's state made (the merge commit's
	// sha), or nil to keep the engine's.
	Answered(c *Call, status int, body []byte) []byte
}

// Call is a request as a Handler sees it, once validated.
type Call struct {
	Ctx    context.Context
	Method string
	// Route is the matched route's template, "GET /repos/{owner}/{repo}/contents/{path...}".
	Route string
	// Path returns the value of the route's path parameter name.
	Path func(name string) string
	// Params are the request's decoded parameters (query and body), as
	// the dialect's Decoder reads them; nil when none were sent.
	Params map[string]any
	// Body is the request body as sent.
	Body []byte
	// Header is the request's headers (Stripe-Version, Idempotency-Key).
	Header http.Header
	// Before is, for Answered, the entity the write changed as it was
	// before the write (an update's, an action's, a delete's); nil for a
	// create, or when the session held none.
	Before []byte
	// Event is, for Answered, the event type the twin declares for the
	// write ([resources.events] in twin.toml: "customer.created"), ""
	// when it declares none. The engine calls Answered for every 2xx
	// write that declares one, whatever Follows says of its route, so
	// that a dialect keeping an event log hears of each.
	Event string
	// Attachment is the session's, nil when it has none yet: a read
	// finds it so when nothing wrote one.
	Attachment Attachment
	// Attach returns the session's attachment, making it when it has none;
	// nil on a read, which may not change the session.
	Attach func() Attachment
	// Entity returns the body of the session's entity of the named
	// resource that the route's path parameters address (a pull request
	// by {owner}, {repo} and {pull_number}); nil when the session holds
	// none.
	Entity func(resource string) []byte
	// Each calls fn with the body of each of the session's entities of
	// resource, whatever their parents, newest first, until fn returns
	// false: what a read that spans a resource (GitHub's search) reads.
	Each func(resource string, fn func(body []byte) bool)
	// World is the session's entities, for a write that changes more than
	// its own (dialect.World); nil on a read.
	World World
	// Clock moves the session's clock, for a provider's own clock routes;
	// nil on a read.
	Clock Clock
	// Now is the session's time for the request, in unix seconds.
	Now int64
	// Here is where the request was sent, for URLs in the answer.
	Here Here
}

// Answer is a Handler's answer: a status, a JSON body (nil for none) and
// a Link header for a list's pages ("" for none); the engine sets the
// rest of the headers, as for its own answers.
type Answer struct {
	Status int
	Body   []byte
	Link   string
	// Changed says the answer changed the session's attachment, so that
	// a persister or a snapshot knows the session changed.
	Changed bool
	// Ignored are the request's top-level parameters the answer did not
	// act on, sorted, which the engine reports in X-Wraith-Ignored-Params
	// as it reports its own.
	Ignored []string
}

// Protocol is what a dialect implements when some of its paths speak a
// protocol other than its API, served from the session's attachment
// (git's smart HTTP, on GitHub's /OWNER/REPO.git/...). The engine asserts
// it once and asks it about every request before routing, once the
// request's session is known.
type Protocol interface {
	// Protocol reports whether a request for path is the protocol's,
	// and whether serving it may change the session's attachment (a
	// push), which then takes the session's exclusive lock to make it.
	Protocol(method, path string) (ok, writes bool)
	// ServeProtocol answers the request from a, the session's
	// attachment (nil when it has none). The session's lock is not held:
	// a is safe for concurrent use, and a slow client holds up nobody.
	ServeProtocol(w http.ResponseWriter, r *http.Request, a Attachment)
}
