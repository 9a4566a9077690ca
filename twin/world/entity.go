package world

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"sync/atomic"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/object"
)

// Entity is one provider object as served. Entities are immutable once
// built; a change makes a new Entity.
//
// An entity a session writes is most of the time its resource's skeleton
// with a few fields changed, so it is kept as a patch over the skeleton's
// encoding (SetPatch) and its bytes are rebuilt when asked for; entities
// from recordings and fixtures, shared by every session, keep their bytes
// whole (SetBody).
type Entity struct {
	ID       string
	Resource string // the provider's object type, e.g. "customer"
	Created  int64  // the object's creation time (unix seconds), for list order
	Seq      uint64 // tie-break for list order: later is newer
	// place holds the entity's exchange and scope (Exchange, Scope), which
	// most entities lack: one string for both saves a string header in
	// every entity. placed says which it holds; with both, they are
	// joined by a NUL, which an exchange never holds.
	place string
	// Provenance says where the entity's current body came from.
	Provenance Provenance
	// Deleted marks a tombstone in a session overlay.
	Deleted bool
	placed  uint8 // hasExchange, hasScope

	body []byte           // the JSON as served; a patch over skel when skel is set
	skel *object.Skeleton // see SetPatch
	// hash caches the hash of the entity's canonical body (BodyHash).
	// Entities are immutable and shared by every session (and every
	// fork) that sees them, and digests of different sessions read them
	// at the same time, so the sum is published atomically: two first
	// readers may both compute it, and compute the same. It makes an
	// Entity a value not to copy (go vet says so): a changed version
	// starts from Copy, which caches nothing.
	hash atomic.Pointer[[sha256.Size]byte]
}

// Copy returns a new entity with e's fields and body and no hash cached:
// the start of a changed version, to change before it is shared.
func (e *Entity) Copy() *Entity {
	return &Entity{ID: e.ID, Resource: e.Resource, Created: e.Created, Seq: e.Seq, place: e.place, placed: e.placed,
		Provenance: e.Provenance, Deleted: e.Deleted, body: e.body, skel: e.skel}
}

// What placed says place holds.
const (
	hasExchange uint8 = 1 << iota
	hasScope
)

// Exchange is "<recording>/<index>" of the observation, for recorded
// entities; "" for others.
func (e *Entity) Exchange() string {
	switch e.placed {
	case hasExchange:
		return e.place
	case hasExchange | hasScope:
		x, _, _ := strings.Cut(e.place, "\x00")
		return x
	}
	return ""
}

// Scope is the values of the entity's parent keys, joined by "/"
// (GitHub's "octocat/hello" for an issue): lists under a parent show
// only the entities of its scope. "" for unparented resources.
func (e *Entity) Scope() string {
	switch e.placed {
	case hasScope:
		return e.place
	case hasExchange | hasScope:
		_, s, _ := strings.Cut(e.place, "\x00")
		return s
	}
	return ""
}

// SetPlace sets e's exchange and scope, before e is shared. The exchange
// holds no NUL: it is a recording's file name and an index, or a
// snapshot's, which is checked as a header value is; a scope may hold
// anything.
func (e *Entity) SetPlace(exchange, scope string) {
	switch {
	case exchange == "" && scope == "":
		e.place, e.placed = "", 0
	case scope == "":
		e.place, e.placed = exchange, hasExchange
	case exchange == "":
		e.place, e.placed = scope, hasScope
	default:
		e.place, e.placed = exchange+"\x00"+scope, hasExchange|hasScope
	}
}

// SetScope sets e's scope and keeps its exchange, before e is shared.
func (e *Entity) SetScope(scope string) { e.SetPlace(e.Exchange(), scope) }

// Body returns e's JSON as served: compact, scrubbed. The caller must not
// change the bytes: they may be shared. For an entity kept as a patch the
// bytes are rebuilt at each call; AppendBody saves the allocation.
func (e *Entity) Body() []byte {
	if e.skel == nil {
		return e.body
	}
	return e.skel.Append(make([]byte, 0, e.skel.Len(e.body, e.Known())), e.body, e.Known())
}

// AppendBody appends e's body to buf.
func (e *Entity) AppendBody(buf []byte) []byte {
	if e.skel == nil {
		return append(buf, e.body...)
	}
	return e.skel.Append(buf, e.body, e.Known())
}

// BodyLen returns the length of e's body.
func (e *Entity) BodyLen() int {
	if e.skel == nil {
		return len(e.body)
	}
	return e.skel.Len(e.body, e.Known())
}

// BodyIs reports whether b is e's body, byte for byte, without
// allocating: a body over 4 KiB kept as a patch is not built to compare,
// and reports false.
func (e *Entity) BodyIs(b []byte) bool {
	if e.skel == nil {
		return bytes.Equal(e.body, b)
	}
	var scratch [4096]byte
	if e.skel.Len(e.body, e.Known()) != len(b) || len(b) > len(scratch) {
		return false
	}
	return bytes.Equal(e.skel.Append(scratch[:0], e.body, e.Known()), b)
}

// Kept returns how many bytes e holds for its body: its patch's, or its
// whole body's.
func (e *Entity) Kept() int { return cap(e.body) }

// SetBody sets e's body. Call it only while building e, before e is
// shared (Builder.Put, a session's Put): entities are immutable afterwards.
func (e *Entity) SetBody(b []byte) { e.body, e.skel = b, nil }

// SetPatch sets e's body to the encoding that patch (from
// object.Skeleton.AppendDiff with e.Known()) rebuilds from skel. Like
// SetBody, call it only while building e, with e's ID and Created set: the
// patch refers to them, and neither it nor they may change afterwards.
func (e *Entity) SetPatch(skel *object.Skeleton, patch []byte) { e.body, e.skel = patch, skel }

// Known returns what a patch of e may refer to instead of holding it: its
// id and creation time.
func (e *Entity) Known() object.Known { return object.Known{ID: e.ID, Created: e.Created} }

// Patched reports whether e is kept as a patch over its resource's
// skeleton rather than as its whole body.
func (e *Entity) Patched() bool { return e.skel != nil }

// BodyHash returns the sha256 of e's body as canonical JSON (keys sorted,
// no insignificant space); a body that does not parse is hashed as it is.
// It is safe to call from many goroutines at once.
func (e *Entity) BodyHash() [sha256.Size]byte {
	if sum := e.hash.Load(); sum != nil {
		return *sum
	}
	sum := hashBody(e.Body())
	e.hash.CompareAndSwap(nil, &sum)
	return sum
}

func hashBody(body []byte) [sha256.Size]byte {
	if c, err := canon.JSON(body); err == nil && c != nil {
		body = c
	}
	return sha256.Sum256(body)
}
