package reqschema

import "strconv"

// path is where a value sits in the parameters, as a chain from the
// value up to its top-level name; the parameters themselves are the nil
// path. The checker builds it on the stack as it descends and writes it
// out only for a problem, so that a valid request costs no string.
type path struct {
	up    *path
	key   string
	index int // the list index when the step is one, else -1
}

func (p *path) child(key string) path { return path{up: p, key: key, index: -1} }
func (p *path) at(i int) path         { return path{up: p, index: i} }

// String writes p in Stripe's bracket notation: items[0][price].
func (p *path) String() string { return string(p.append(nil)) }

// append writes p after b. It reads the chain by recursion rather than
// gathering it in a slice, which would move every step to the heap.
func (p *path) append(b []byte) []byte {
	if p == nil {
		return b
	}
	b = p.up.append(b)
	switch {
	case p.index >= 0:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(p.index), 10)
		return append(b, ']')
	case p.up == nil:
		return append(b, p.key...)
	}
	b = append(b, '[')
	b = append(b, p.key...)
	return append(b, ']')
}
