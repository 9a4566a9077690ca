package engine

import (
	"strings"

	"github.com/wraithdev/wraith/twin/object"
)

// Personal data in what the engine stores and serves. Recordings reach
// the twin scrubbed; what the engine synthesizes (skeletons, fixtures and
// the values agents send) is tokenized here, under the twin's policy,
// which the serve-wide --pii-verbatim extends. A session's own
// pii_verbatim extends it again for that session only: keep lists those
// fields, and is nil for every session that has none, which keeps the
// common path a plain policy lookup.

// scrubObject tokenizes every string under a PII-shaped field name, at any
// depth, unless the twin's policy serves the field verbatim.
func (e *Engine) scrubObject(o *object.Object) { e.scrubObjectKeep(nil, o) }

// scrubbed returns v, about to be stored under field, with its PII
// tokenized: all of it when field is PII-shaped, else whatever PII-shaped
// fields it holds. Writes scrub only the values they set, so everything
// an entity starts from must be scrubbed already: resource skeletons and
// shapes are scrubbed when the twin is compiled, fixture entities when
// their world is built, and a recorded entity when a write first takes it
// up (see current).
func (e *Engine) scrubbed(field string, v any) any { return e.scrubbedKeep(nil, field, v) }

// isPII reports whether values under field are tokenized for a session
// that keeps the fields keep verbatim.
func (e *Engine) isPII(keep []string, field string) bool {
	return e.scrub.IsPII(field) && !kept(keep, field)
}

// kept reports whether keep (lower-case, see session.PIIFields) names
// field, in any case. keep is short (at most session.MaxPIIFields), so a
// scan beats building a set per session.
func kept(keep []string, field string) bool {
	for _, k := range keep {
		if strings.EqualFold(k, field) {
			return true
		}
	}
	return false
}

func (e *Engine) scrubObjectKeep(keep []string, o *object.Object) {
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		o.Set(k, e.scrubbedKeep(keep, k, v))
	}
}

func (e *Engine) scrubbedKeep(keep []string, field string, v any) any {
	if e.isPII(keep, field) {
		return e.scrubAll(field, v)
	}
	switch t := v.(type) {
	case *object.Object:
		e.scrubObjectKeep(keep, t)
	case []any:
		for _, el := range t {
			if so, ok := el.(*object.Object); ok {
				e.scrubObjectKeep(keep, so)
			}
		}
	}
	return v
}

// scrubAll tokenizes every string leaf of v.
func (e *Engine) scrubAll(field string, v any) any {
	switch t := v.(type) {
	case string:
		return e.scrub.Token(field, t)
	case *object.Object:
		for _, k := range t.Keys() {
			sv, _ := t.Get(k)
			t.Set(k, e.scrubAll(k, sv))
		}
		return t
	case []any:
		for i, el := range t {
			t[i] = e.scrubAll(field, el)
		}
		return t
	default:
		return v
	}
}
