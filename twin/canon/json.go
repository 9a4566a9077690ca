package canon

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jwriter writes the canonical form of a parsed document, whose members
// the parser has already sorted.
type jwriter struct {
	jparser
	out []byte
	tmp []byte // decoded strings, reused
}

func (w *jwriter) value(i int32) {
	n := &w.nodes[i]
	switch n.kind {
	case '{':
		w.out = append(w.out, '{')
		first := true
		for c := n.first; c >= 0; c = w.nodes[c].next {
			if next := w.nodes[c].next; next >= 0 && w.compareKeys(int(c), int(next)) == 0 {
				continue // a repeated key: the last one wins
			}
			if !first {
				w.out = append(w.out, ',')
			}
			first = false
			w.out = appendQuoted(w.out, w.key(int(c)))
			w.out = append(w.out, ':')
			w.value(c)
		}
		w.out = append(w.out, '}')
	case '[':
		w.out = append(w.out, '[')
		for c := n.first; c >= 0; c = w.nodes[c].next {
			if c != n.first {
				w.out = append(w.out, ',')
			}
			w.value(c)
		}
		w.out = append(w.out, ']')
	case '"':
		raw := w.in[n.start:n.end]
		if n.escaped {
			w.tmp = appendUnquoted(w.tmp[:0], raw)
			raw = w.tmp
		}
		w.out = appendQuoted(w.out, raw)
	default:
		w.out = append(w.out, w.in[n.start:n.end]...)
	}
}

// appendUnquoted appends the decoded text of a validated JSON string body
// (between the quotes), coercing it to UTF-8 as encoding/json does: a bad
// byte or a lone surrogate becomes U+FFFD.
func appendUnquoted(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			e := s[i+1]
			i += 2
			switch e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(s[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2 = hex4(s[i+2:])
					}
					if r = utf16.DecodeRune(r, r2); r != utf8.RuneError {
						i += 6
					}
				}
				dst = utf8.AppendRune(dst, r)
			default: // '"', '\\', '/'
				dst = append(dst, e)
			}
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, r)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

// hex4 reads four validated hex digits.
func hex4(b []byte) rune {
	return rune(unhex(b[0]))<<12 | rune(unhex(b[1]))<<8 | rune(unhex(b[2]))<<4 | rune(unhex(b[3]))
}

// appendQuoted appends s as a JSON string the way encoding/json writes a
// string with HTML escaping off, except that an invalid UTF-8 byte becomes
// U+FFFD itself rather than its escape, which is what decoding and encoding
// again with encoding/json produces.
func appendQuoted(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = utf8.AppendRune(dst, utf8.RuneError)
		case r == '\u2028' || r == '\u2029':
			// Valid JSON, but not valid JavaScript: encoding/json escapes them.
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&15])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonParams decodes a JSON body for Params. It reuses the canonical
// parser rather than encoding/json: one pass, no reflection.
func jsonParams(body []byte) (map[string]any, error) {
	var b jbuilder
	ok, err := b.parse(body)
	if err != nil {
		return nil, fmt.Errorf("json body: %w", err)
	}
	if !ok {
		return nil, nil
	}
	if k := b.nodes[0].kind; k != '{' {
		return nil, fmt.Errorf("json body is %s: want an object", kindName(k))
	}
	v, err := b.value(0, 0)
	if err != nil {
		if ne, ok := err.(*NumberError); ok {
			ne.param()
		}
		return nil, err
	}
	return v.(map[string]any), nil
}

// jbuilder builds Params' tree from a parsed document.
type jbuilder struct {
	jparser
	tmp []byte
}

// value builds node i, which sits depth containers deep.
func (b *jbuilder) value(i int32, depth int) (any, error) {
	n := &b.nodes[i]
	if (n.kind == '{' || n.kind == '[') && depth > MaxDepth {
		return nil, fmt.Errorf("json body nests deeper than %d levels", MaxDepth)
	}
	switch n.kind {
	case '{':
		m := map[string]any{}
		for c := n.first; c >= 0; c = b.nodes[c].next {
			v, err := b.value(c, depth+1)
			if err != nil {
				if ne, ok := err.(*NumberError); ok {
					ne.path = append(ne.path, string(b.key(int(c))))
				}
				return nil, err
			}
			m[string(b.key(int(c)))] = v
		}
		return m, nil
	case '[':
		list := []any{}
		for c := n.first; c >= 0; c = b.nodes[c].next {
			v, err := b.value(c, depth+1)
			if err != nil {
				if ne, ok := err.(*NumberError); ok {
					ne.path = append(ne.path, strconv.Itoa(len(list)))
				}
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case '"':
		raw := b.in[n.start:n.end]
		if n.escaped || !utf8.Valid(raw) {
			b.tmp = appendUnquoted(b.tmp[:0], raw)
			raw = b.tmp
		}
		return string(raw), nil
	case '0':
		text := b.in[n.start:n.end]
		if !fitsFloat(text) {
			return nil, &NumberError{Text: string(text)}
		}
		return json.Number(text), nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	}
	return nil, nil
}

// kindName names a top-level value that is not an object, for errors.
func kindName(k byte) string {
	switch k {
	case '[':
		return "a list"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 'n':
		return "null"
	}
	return "a boolean"
}
