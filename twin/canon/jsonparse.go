package canon

import (
	"bytes"
	"fmt"
	"math"
)

// maxJSONDepth bounds how deeply arrays and objects may nest, far beyond any
// API body, so hostile input cannot recurse without limit.
const maxJSONDepth = 512

// maxReserve is the most nodes parse reserves up front (about 1.8 MiB).
const maxReserve = 1 << 16

// jnode is one JSON value of a parsed document. Children of an array or
// object are chained through next, starting at first; -1 ends a chain.
// Offsets are int32 to keep nodes small: a document is at most
// math.MaxInt32 bytes.
type jnode struct {
	start, end  int32 // the value's text in the input; for strings, between the quotes
	first, next int32
	// keyStart and keyEnd locate an object member's decoded key: in the
	// input, or in jparser.keys when keyBuf is set (the key needed decoding).
	keyStart, keyEnd int32
	kind             byte // '{', '[', '"', '0' (number), 't', 'f', 'n'
	escaped          bool // a string holding a backslash
	keyBuf           bool
}

// jparser is a strict RFC 8259 parser that records where values are
// instead of building them.
type jparser struct {
	in    []byte
	pos   int
	depth int
	nodes []jnode
	keys  []byte
}

// parse parses in, which must hold exactly one JSON value. It returns
// false when in holds only whitespace.
func (p *jparser) parse(in []byte) (ok bool, err error) {
	if len(in) > math.MaxInt32 {
		return false, fmt.Errorf("JSON document of %d bytes is too large", len(in))
	}
	p.in, p.pos = in, 0
	// Every value but the first follows a ',', '[' or '{', so this is
	// enough nodes, unless strings hold many of those bytes: then cap what
	// we reserve, and let append grow it. The reservation is also capped
	// outright, so a long string of commas reserves nothing much.
	n := 1 + bytes.Count(in, []byte{','}) + bytes.Count(in, []byte{'['}) + bytes.Count(in, []byte{'{'})
	p.nodes = make([]jnode, 0, min(n, len(in)/4+2, maxReserve))
	p.skipSpace()
	if p.pos == len(in) {
		return false, nil
	}
	if _, err := p.value(); err != nil {
		return false, err
	}
	if p.skipSpace(); p.pos < len(in) {
		return false, p.fail("unexpected data after the top-level value")
	}
	return true, nil
}

func (p *jparser) fail(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// have describes the byte at the current position for errors.
func (p *jparser) have() string {
	if p.pos >= len(p.in) {
		return "end of input"
	}
	return fmt.Sprintf("%q", p.in[p.pos])
}

func (p *jparser) skipSpace() {
	for p.pos < len(p.in) {
		switch p.in[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value parses one value at p.pos, which is not whitespace, and returns its
// node index.
func (p *jparser) value() (int, error) {
	if p.pos >= len(p.in) {
		return 0, p.fail("want a value, have end of input")
	}
	i := len(p.nodes)
	p.nodes = append(p.nodes, jnode{start: int32(p.pos), first: -1, next: -1})
	var err error
	switch c := p.in[p.pos]; c {
	case '{', '[':
		p.nodes[i].kind = c
		err = p.container(i, c)
	case '"':
		p.nodes[i].kind = c
		p.pos++
		p.nodes[i].start = int32(p.pos)
		p.nodes[i].escaped, err = p.str()
		p.nodes[i].end = int32(p.pos - 1) // before the closing quote
		return i, err
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		p.nodes[i].kind = '0'
		err = p.number()
	case 't', 'f', 'n':
		p.nodes[i].kind = c
		err = p.literal(c)
	default:
		return 0, p.fail("want a value, have %s", p.have())
	}
	p.nodes[i].end = int32(p.pos)
	return i, err
}

// container parses the array or object node i opened by open. It sorts
// an object's members by key unless they arrived sorted.
func (p *jparser) container(i int, open byte) error {
	if p.depth++; p.depth > maxJSONDepth {
		return p.fail("nesting deeper than %d levels", maxJSONDepth)
	}
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.in) && p.in[p.pos] == closer {
		p.pos++
		p.depth--
		return nil
	}
	last, n, sorted := -1, 0, true
	for {
		var keyStart, keyEnd int32
		var keyBuf bool
		if open == '{' {
			var err error
			if keyStart, keyEnd, keyBuf, err = p.memberKey(); err != nil {
				return err
			}
			p.skipSpace()
		}
		c, err := p.value()
		if err != nil {
			return err
		}
		p.nodes[c].keyStart, p.nodes[c].keyEnd, p.nodes[c].keyBuf = keyStart, keyEnd, keyBuf
		if last < 0 {
			p.nodes[i].first = int32(c)
		} else {
			p.nodes[last].next = int32(c)
			sorted = sorted && (open == '[' || p.compareKeys(last, c) <= 0)
		}
		last = c
		n++
		p.skipSpace()
		if p.pos < len(p.in) && p.in[p.pos] == ',' {
			p.pos++
			p.skipSpace()
			continue
		}
		if p.pos < len(p.in) && p.in[p.pos] == closer {
			p.pos++
			break
		}
		return p.fail("want ',' or %q, have %s", closer, p.have())
	}
	if !sorted {
		p.nodes[i].first = p.sortMembers(p.nodes[i].first, n)
	}
	p.depth--
	return nil
}

// sortMembers merge-sorts the chain of n members starting at head by key,
// stably, and returns its new head. Sorting the chain in place needs no
// scratch memory.
func (p *jparser) sortMembers(head int32, n int) int32 {
	if n < 2 {
		return head
	}
	mid := head
	for range n/2 - 1 {
		mid = p.nodes[mid].next
	}
	right := p.nodes[mid].next
	p.nodes[mid].next = -1
	a, b := p.sortMembers(head, n/2), p.sortMembers(right, n-n/2)
	first, last := int32(-1), int32(-1)
	for a >= 0 && b >= 0 {
		c := b
		if p.compareKeys(int(a), int(b)) <= 0 { // equal keys keep their order
			c = a
		}
		if c == a {
			a = p.nodes[a].next
		} else {
			b = p.nodes[b].next
		}
		if last < 0 {
			first = c
		} else {
			p.nodes[last].next = c
		}
		last = c
	}
	if a < 0 {
		a = b
	}
	p.nodes[last].next = a
	return first
}

// key returns member i's decoded key.
func (p *jparser) key(i int) []byte {
	n := &p.nodes[i]
	if n.keyBuf {
		return p.keys[n.keyStart:n.keyEnd]
	}
	return p.in[n.keyStart:n.keyEnd]
}

func (p *jparser) compareKeys(a, b int) int { return bytes.Compare(p.key(a), p.key(b)) }
