package object

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Skeleton is the encoding of a resource's skeleton object, cut at its
// top-level fields, so that an object built over the skeleton can be kept
// as the few fields that differ from it (a patch, see Diff) and its bytes
// rebuilt on demand (Append). A Skeleton is immutable and shared by every
// entity patched against it, so reading it from many goroutines is safe.
//
// A patch is a run of operations in ascending field order, each
// uvarint((i+1)<<2 | kind) for the skeleton's field i: kind opRemoved; or
// opValue, followed by uvarint(len) and the value's encoding; or opID or
// opCreated, whose value is the one the caller keeps anyway and passes to
// Append again (an entity's id and creation time), so the patch does not
// hold it twice. A zero ends the run. What follows is the encoding of the
// fields the object adds after the skeleton's, each as `,"name":value`.
type Skeleton struct {
	obj   *Object // the skeleton itself, read only
	enc   []byte  // obj's compact encoding
	spans []span  // per field, where it lies in enc
}

// Kinds of patch operations.
const (
	opValue   = 0
	opRemoved = 1
	opID      = 2 // the string Known.ID
	opCreated = 3 // the integer Known.Created
)

// Known are values an entity keeps beside its patch: a field of the
// object whose value is one of them is written in the patch as a
// reference to it.
type Known struct {
	ID      string
	Created int64
}

// span places field i in enc: `"name":value` is enc[start:end], its value
// enc[value:end].
type span struct {
	start, value, end int
}

// NewSkeleton encodes o, which must not change afterwards: the skeleton
// shares its values, and Diff trusts a shared value to encode as it did.
func NewSkeleton(o *Object) *Skeleton {
	s := &Skeleton{obj: o, spans: make([]span, len(o.keys))}
	buf := []byte{'{'}
	for i, k := range o.keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		s.spans[i].start = len(buf)
		buf = AppendString(buf, k)
		buf = append(buf, ':')
		s.spans[i].value = len(buf)
		buf = AppendValue(buf, o.vals[i])
		s.spans[i].end = len(buf)
	}
	s.enc = append(buf, '}')
	return s
}

// Object returns the skeleton's object. It must not be changed.
func (s *Skeleton) Object() *Object { return s.obj }

// Bytes returns the skeleton's own encoding. It must not be changed.
func (s *Skeleton) Bytes() []byte { return s.enc }

// AppendDiff appends to dst the patch that rebuilds o's encoding from s.
// It is small when o keeps the skeleton's fields in the skeleton's order
// and adds its own after them, as an object cloned from the skeleton and
// changed with Set and Delete does; from the first field out of that
// order on, the patch holds o's fields whole. Values o shares with the
// skeleton cost nothing; others are encoded, and kept only when their
// encoding differs from the skeleton's.
//
// A value equal to known.ID or known.Created is written as a reference to
// it; Append and Len must be given the same known.
func (s *Skeleton) AppendDiff(dst []byte, o *Object, known Known) []byte {
	var created [20]byte
	createdText := strconv.AppendInt(created[:0], known.Created, 10)
	next := 0     // the first skeleton field not yet placed
	tail := false // o has added a field: everything from here on follows the skeleton's
	names := s.obj.keys
	for j, k := range o.keys {
		v := o.vals[j]
		i := -1
		if !tail {
			i = s.find(k, next)
		}
		if i < 0 {
			if !tail {
				tail = true
				for ; next < len(names); next++ { // in the tail's place
					dst = appendOp(dst, next, opRemoved)
				}
				dst = append(dst, 0)
			}
			dst = append(dst, ',')
			dst = AppendString(dst, k)
			dst = append(dst, ':')
			dst = AppendValue(dst, v)
			continue
		}
		for ; next < i; next++ {
			dst = appendOp(dst, next, opRemoved)
		}
		next = i + 1
		if shared(v, s.obj.vals[i]) {
			continue
		}
		switch t := v.(type) {
		case string:
			if t == known.ID && t != "" {
				dst = appendOp(dst, i, opID)
				continue
			}
		case json.Number:
			if string(t) == string(createdText) {
				dst = appendOp(dst, i, opCreated)
				continue
			}
		}
		mark := len(dst)
		dst = appendOp(dst, i, opValue)
		lenAt := len(dst)
		dst = AppendValue(dst, v)
		enc := dst[lenAt:]
		if bytes.Equal(enc, s.enc[s.spans[i].value:s.spans[i].end]) {
			dst = dst[:mark]
			continue
		}
		// The length goes before the value: shift the value up by the
		// length's size, which is small next to the value.
		var n [binary.MaxVarintLen64]byte
		w := binary.PutUvarint(n[:], uint64(len(enc)))
		dst = append(dst, n[:w]...)
		copy(dst[lenAt+w:], dst[lenAt:len(dst)-w])
		copy(dst[lenAt:], n[:w])
	}
	if !tail {
		for ; next < len(names); next++ {
			dst = appendOp(dst, next, opRemoved)
		}
		dst = append(dst, 0)
	}
	return dst
}

// find returns the position of field k at or after from, or -1. Fields
// of an object built over the skeleton come in the skeleton's order, so
// the name is almost always the one at from.
func (s *Skeleton) find(k string, from int) int {
	names := s.obj.keys
	if from < len(names) && names[from] == k {
		return from
	}
	i := s.obj.find(k)
	if i < from {
		return -1
	}
	return i
}

func appendOp(dst []byte, i int, kind uint64) []byte {
	return binary.AppendUvarint(dst, uint64(i+1)<<2|kind)
}

// shared reports whether v is the skeleton's value w itself, or a scalar
// equal to it: either way it encodes as w does.
func shared(v, w any) bool {
	switch x := v.(type) {
	case nil:
		return w == nil
	case string:
		y, ok := w.(string)
		return ok && x == y
	case json.Number:
		y, ok := w.(json.Number)
		return ok && x == y
	case bool:
		y, ok := w.(bool)
		return ok && x == y
	case *Object:
		y, ok := w.(*Object)
		return ok && x == y
	case []any:
		y, ok := w.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	}
	return false
}

// Append appends to buf the object's encoding that patch (from AppendDiff
// on s, with the same known) describes.
func (s *Skeleton) Append(buf, patch []byte, known Known) []byte {
	buf = append(buf, '{')
	wrote := false
	run := func(from, to int) { // the skeleton's fields [from, to) as they are
		if from >= to {
			return
		}
		if wrote {
			buf = append(buf, ',')
		}
		buf = append(buf, s.enc[s.spans[from].start:s.spans[to-1].end]...)
		wrote = true
	}
	at := 0
	r := patchReader{rest: patch}
	for {
		i, kind, value, ok := r.next()
		if !ok {
			break
		}
		run(at, i)
		at = i + 1
		if kind == opRemoved {
			continue
		}
		if wrote {
			buf = append(buf, ',')
		}
		buf = append(buf, s.enc[s.spans[i].start:s.spans[i].value]...)
		wrote = true
		switch kind {
		case opID:
			buf = AppendString(buf, known.ID)
		case opCreated:
			buf = strconv.AppendInt(buf, known.Created, 10)
		default:
			buf = append(buf, value...)
		}
	}
	run(at, len(s.spans))
	if patch := r.rest; len(patch) > 0 {
		if !wrote {
			patch = patch[1:] // its leading comma
		}
		buf = append(buf, patch...)
	}
	return append(buf, '}')
}

// Len returns the length of the encoding patch describes, so a caller can
// allocate it exactly.
func (s *Skeleton) Len(patch []byte, known Known) int {
	n, fields := 2, 0 // the braces; fields placed so far
	at := 0
	run := func(from, to int) {
		if from >= to {
			return
		}
		n += s.spans[to-1].end - s.spans[from].start
		if fields > 0 {
			n++
		}
		fields += to - from
	}
	r := patchReader{rest: patch}
	for {
		i, kind, value, ok := r.next()
		if !ok {
			break
		}
		run(at, i)
		at = i + 1
		if kind == opRemoved {
			continue
		}
		n += s.spans[i].value - s.spans[i].start
		switch kind {
		case opID:
			n += stringLen(known.ID)
		case opCreated:
			var b [20]byte
			n += len(strconv.AppendInt(b[:0], known.Created, 10))
		default:
			n += len(value)
		}
		if fields > 0 {
			n++
		}
		fields++
	}
	run(at, len(s.spans))
	if patch := r.rest; len(patch) > 0 {
		n += len(patch)
		if fields == 0 {
			n--
		}
	}
	return n
}

// patchReader reads a patch's run of operations (see Skeleton); what is
// left in rest once next reports the end is the fields the object adds.
type patchReader struct {
	rest []byte
}

// next returns the next operation: the skeleton field i it applies to,
// its kind, and for opValue the value's encoding. ok is false at the end
// of the run.
func (r *patchReader) next() (i int, kind uint64, value []byte, ok bool) {
	op, n := binary.Uvarint(r.rest)
	r.rest = r.rest[n:]
	if op == 0 {
		return 0, 0, nil, false
	}
	kind = op & 3
	if kind == opValue {
		l, n := binary.Uvarint(r.rest)
		value, r.rest = r.rest[n:n+int(l)], r.rest[n+int(l):]
	}
	return int(op>>2) - 1, kind, value, true
}

// stringLen returns the length of AppendString's encoding of s, without
// encoding it when nothing in s is escaped (ids never are).
func stringLen(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			var b [64]byte
			return len(AppendString(b[:0], s))
		}
	}
	return len(s) + 2
}
