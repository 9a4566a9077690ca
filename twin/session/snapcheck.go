package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/prov"
	"github.com/wraithdev/wraith/twin/world"
)

// Bounds on what a snapshot may carry beside its entities' bodies. A
// snapshot is read from outside (PUT /__wraith/session/{id}/snapshot), so
// every value that later reaches a header, a metrics label, a map key or a
// status line is held to what this twin could have written itself.
const (
	// MaxIdempotencyKey is the longest Idempotency-Key a session
	// remembers, the length Stripe accepts: the engine refuses longer
	// ones, and a snapshot may not carry one.
	MaxIdempotencyKey = 255
	// MaxSnapshotText bounds the other strings a snapshot names an entity
	// or a counter by: ids, addresses, scopes, exchanges and counter names.
	// They come from request paths, which the server's MaxHeaderBytes
	// (64 KiB) bounds, so no session made a longer one.
	MaxSnapshotText = 64 << 10
)

// Validate checks state read from a snapshot document before any of it is
// restored: the id generator's state, the sequence and counters, the rate
// window, the fault counters, every remembered answer and every entity's
// bookkeeping (whose body must be a JSON object; that it names its own id
// and type is the engine's to check, it knows how each resource is keyed).
// The first problem is answered as an invalid-snapshot error whose message
// and "path" detail name the JSON path of the bad value and say what is
// expected.
func (d *StateDoc) Validate() *apierr.Error { return d.validate(checkBodies) }

// bodyCheck says whether validation parses each entity's body.
type bodyCheck bool

const (
	checkBodies bodyCheck = true
	trustBodies bodyCheck = false // a durable store's own document (RestoreWritten)
)

func (d *StateDoc) validate(bodies bodyCheck) *apierr.Error {
	var probe State
	if err := probe.rng.UnmarshalBinary(d.Generator); err != nil {
		return invalid("generator", "the id generator's state does not read (%v): want the value a snapshot of this wraith version wrote", err)
	}
	switch {
	case d.ClockPos < 0 || d.ClockPos > MaxEpoch*1e9:
		return invalid("clock_pos_ns", "%d is outside 0 to %d (the end of 2199, in nanoseconds)", d.ClockPos, int64(MaxEpoch*1e9))
	case d.Seq < seqBase:
		return invalid("seq", "%d is below %d, where every session's sequence starts", d.Seq, uint64(seqBase))
	case d.RateEnd < 0:
		return invalid("rate_window_end_ns", "%d is negative: want a unix time in nanoseconds, or 0 for no window", d.RateEnd)
	case d.RateCount < 0 || d.RateCount > math.MaxInt32:
		return invalid("rate_window_count", "%d is outside 0 to %d", d.RateCount, math.MaxInt32)
	case len(d.FaultCounts) > format.MaxFaultRules:
		// The loader holds every profile to the same bound, so no twin
		// writes a snapshot this refuses.
		return invalid("fault_counts", "%d rules' counters, past %d: no fault profile has that many rules", len(d.FaultCounts), format.MaxFaultRules)
	}
	for name, n := range d.Counters {
		p := "counters." + strconv.Quote(name)
		switch {
		case name == "" || len(name) > MaxSnapshotText:
			return invalid(p, "a counter name of %d bytes: want 1 to %d", len(name), MaxSnapshotText)
		case n < 0 || n > math.MaxInt32:
			return invalid(p, "%d is outside 0 to %d", n, math.MaxInt32)
		}
	}
	for i, c := range d.FaultCounts {
		if c.Fired > c.Matched {
			return invalid(fmt.Sprintf("fault_counts[%d]", i), "fired %d times of %d matched: a rule fires only on requests it matched", c.Fired, c.Matched)
		}
	}
	// Sorted, so the same document always names the same problem.
	for _, key := range slices.Sorted(maps.Keys(d.Idempotency)) {
		if err := validReplay(key, d.Idempotency[key]); err != nil {
			return err
		}
	}
	for i := range d.Entities {
		if err := d.Entities[i].validate(i, d.Seq, bodies); err != nil {
			return err
		}
	}
	return nil
}

// validReplay checks one remembered answer: it is written back as a status
// line, a body and a provenance (a header and a metrics label) on every
// replay of its key.
func validReplay(key string, r *Replay) *apierr.Error {
	p := "idempotency." + strconv.Quote(key)
	switch {
	case key == "" || len(key) > MaxIdempotencyKey:
		return invalid(p, "an Idempotency-Key of %d bytes: want 1 to %d", len(key), MaxIdempotencyKey)
	case !headerSafe(key):
		return invalid(p, "the key holds control bytes: an Idempotency-Key is a header value, which cannot")
	case r == nil:
		return invalid(p, "null: want the remembered answer, an object with Fingerprint, Status, Body and Provenance")
	case len(r.Fingerprint) != 64 || !isHex(r.Fingerprint):
		return invalid(p+".Fingerprint", "%q: want the 64 hex digits of a request's SHA-256", r.Fingerprint)
	case r.Status < 100 || r.Status > 599:
		return invalid(p+".Status", "%d: want an HTTP status from 100 to 599", r.Status)
	case prov.Index(r.Provenance) < 0:
		return invalid(p+".Provenance", "%q: want one of %v", r.Provenance, prov.All)
	case len(r.Route) > MaxSnapshotText || !headerSafe(r.Route):
		return invalid(p+".Route", "want a route such as \"POST /v1/customers\", or none")
	}
	// Body is not held to JSON: a recorded answer may be text (a
	// recording's body_text), and it is bounded by the snapshot's size.
	return nil
}

// validate checks an entity's bookkeeping and, unless bodies is
// trustBodies, that its body is a JSON object; i is its index in entities
// and seq the session's sequence, which no entity's may pass. created is not
// held to a range: it is only a sort key, and a recorded entity's comes
// from its recorded body, which may count in milliseconds.
func (ed *EntityDoc) validate(i int, seq uint64, bodies bodyCheck) *apierr.Error {
	// The path is made only for a problem: most documents have none, and
	// a restart checks 100,000 entities.
	p := func(field string) string { return fmt.Sprintf("entities[%d].%s", i, field) }
	switch {
	case ed.ID == "" || len(ed.ID) > MaxSnapshotText:
		return invalid(p("id"), "an id of %d bytes: want the entity's id or address, 1 to %d bytes", len(ed.ID), MaxSnapshotText)
	case ed.Object == "" || len(ed.Object) > MaxSnapshotText:
		return invalid(p("object"), "%q: want the name of one of the twin's resources", ed.Object)
	case !entityProvenance(ed):
		return invalid(p("provenance"), "%q: want one of %v (or none, for a deleted entity)", ed.Provenance, world.ProvenanceNames())
	case len(ed.Exchange) > MaxSnapshotText || !headerSafe(ed.Exchange): // X-Wraith-Exchange carries it
		return invalid(p("exchange"), "want a recorded exchange such as \"charges/3\", or none")
	case len(ed.Scope) > MaxSnapshotText:
		return invalid(p("scope"), "want the entity's parents joined by /, such as \"octocat/hello\", or none")
	case ed.Seq > seq:
		return invalid(p("seq"), "%d is past the session's seq %d: every entity's sequence number was handed out before the snapshot", ed.Seq, seq)
	}
	if bodies == trustBodies {
		return nil
	}
	body := bytes.TrimSpace(ed.Body)
	if ed.Deleted && (len(body) == 0 || string(body) == "null") {
		return nil // a tombstone needs no body
	}
	if len(body) == 0 || body[0] != '{' || !json.Valid(body) {
		return invalid(p("body"), "%s: want the entity as a JSON object", describeJSON(body))
	}
	return nil
}

// invalid is a snapshot problem at the JSON path p.
func invalid(p, format string, args ...any) *apierr.Error {
	return apierr.New(apierr.InvalidSnapshot, p+": "+fmt.Sprintf(format, args...)).With("path", p)
}

// describeJSON names what a JSON value is, for a message about it.
func describeJSON(b []byte) string {
	switch {
	case len(b) == 0:
		return "no body"
	case !json.Valid(b):
		return "not JSON"
	case b[0] == '"':
		return "a string"
	case b[0] == '[':
		return "an array"
	case b[0] == 'n':
		return "null"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// headerSafe reports whether s holds no control bytes but tab: what a
// header value may carry (a request's own Idempotency-Key cannot hold one,
// so neither can a key remembered from it).
func headerSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// entityProvenance reports whether ed's provenance is one an entity can
// carry: the world's recorded and fixture entities and the handler's
// writes (the others of package prov, template, fault and miss, name
// answers, never entities), or none for a tombstone of an entity the twin
// synthesized (a delete of an id it never held).
func entityProvenance(ed *EntityDoc) bool {
	p, ok := world.ParseProvenance(ed.Provenance)
	return ok && (p != 0 || ed.Deleted)
}
