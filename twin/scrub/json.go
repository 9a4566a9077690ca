package scrub

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON returns body, compacted, with every string under a personal field
// replaced by its token (see the package doc for the scope of a field).
// Keys keep their order and everything else keeps its bytes: numbers are not
// reformatted and strings not re-escaped. Invalid JSON is an error.
func (s *Scrubber) JSON(body []byte) ([]byte, error) {
	if !json.Valid(body) {
		// Compact reports where the document breaks; Valid only says that it does.
		err := json.Compact(new(bytes.Buffer), body)
		return nil, fmt.Errorf("scrub json: %w", err)
	}
	w := walker{s: s, in: body, out: make([]byte, 0, len(body))}
	w.value(plain)
	return w.out, nil
}

// mode is what happens to the strings of the value being walked.
type mode uint8

const (
	plain    mode = iota // look for personal fields
	personal             // tokenize every string
	verbatim             // copy as is
)

// walker copies a document that json.Valid accepted, so it checks nothing.
// Its recursion is bounded by the nesting json.Valid allows (10,000).
type walker struct {
	s   *Scrubber
	in  []byte
	i   int
	out []byte
}

func (w *walker) value(m mode) {
	w.space()
	switch w.in[w.i] {
	case '{':
		w.object(m)
	case '[':
		w.array(m)
	case '"':
		raw := w.str()
		if m == personal {
			w.token(raw)
		} else {
			w.out = append(w.out, raw...)
		}
	default: // number, true, false, null
		start := w.i
		for w.i < len(w.in) && !isDelim(w.in[w.i]) {
			w.i++
		}
		w.out = append(w.out, w.in[start:w.i]...)
	}
}

func (w *walker) object(m mode) {
	w.out = append(w.out, '{')
	w.i++
	w.space()
	if w.in[w.i] == '}' {
		w.out = append(w.out, '}')
		w.i++
		return
	}
	for {
		w.space()
		key := w.str()
		w.out = append(w.out, key...)
		w.out = append(w.out, ':')
		w.space()
		w.i++ // ':'
		w.value(w.child(m, key))
		w.space()
		c := w.in[w.i]
		w.out = append(w.out, c)
		w.i++
		if c == '}' {
			return
		}
	}
}

// child is the mode of the value under key in an object walked in mode m.
func (w *walker) child(m mode, key []byte) mode {
	if m == verbatim {
		return verbatim
	}
	var ex, pii bool
	if name := key[1 : len(key)-1]; bytes.IndexByte(name, '\\') < 0 {
		ex, pii = exempt(w.s, name), m == plain && listed(w.s, name)
	} else {
		name := unquote(key)
		ex, pii = exempt(w.s, name), m == plain && listed(w.s, name)
	}
	switch {
	case ex:
		return verbatim
	case pii:
		return personal
	}
	return m
}

func (w *walker) array(m mode) {
	w.out = append(w.out, '[')
	w.i++
	w.space()
	if w.in[w.i] == ']' {
		w.out = append(w.out, ']')
		w.i++
		return
	}
	for {
		w.value(m)
		w.space()
		c := w.in[w.i]
		w.out = append(w.out, c)
		w.i++
		if c == ']' {
			return
		}
	}
}

// str consumes the string at w.i and returns it with its quotes.
func (w *walker) str() []byte {
	start := w.i
	w.i++
	for {
		switch w.in[w.i] {
		case '\\':
			w.i += 2
		case '"':
			w.i++
			return w.in[start:w.i]
		default:
			w.i++
		}
	}
}

// token writes the token of the quoted JSON string raw. Tokens need no
// escaping.
func (w *walker) token(raw []byte) {
	w.out = append(w.out, '"')
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
		w.out = w.s.appendToken(w.out, string(inner)) // short values convert on the stack
	} else {
		w.out = w.s.appendToken(w.out, unquote(raw))
	}
	w.out = append(w.out, '"')
}

func (w *walker) space() {
	for w.i < len(w.in) && isSpace(w.in[w.i]) {
		w.i++
	}
}

// unquote returns the value of the valid quoted JSON string raw, which has
// escapes.
func unquote(raw []byte) string {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		// Unreachable for a document json.Valid accepted; a raw string
		// still tokenizes and names no field.
		return string(raw[1 : len(raw)-1])
	}
	return v
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func isDelim(c byte) bool {
	return c == ',' || c == ']' || c == '}' || isSpace(c)
}
