package canon

import "unicode/utf8"

// memberKey parses an object member's key and the ':' after it, returning
// where its decoded text is.
func (p *jparser) memberKey() (start, end int32, inBuf bool, err error) {
	if p.pos >= len(p.in) || p.in[p.pos] != '"' {
		return 0, 0, false, p.fail("want an object key, have %s", p.have())
	}
	p.pos++
	rawStart := p.pos
	escaped, err := p.str()
	if err != nil {
		return 0, 0, false, err
	}
	raw := p.in[rawStart : p.pos-1]
	start, end = int32(rawStart), int32(p.pos-1)
	if escaped || !utf8.Valid(raw) {
		// The key sorts by what it means, so decode it once here.
		start = int32(len(p.keys))
		p.keys = appendUnquoted(p.keys, raw)
		end, inBuf = int32(len(p.keys)), true
	}
	p.skipSpace()
	if p.pos >= len(p.in) || p.in[p.pos] != ':' {
		return 0, 0, false, p.fail("want ':' after an object key, have %s", p.have())
	}
	p.pos++
	return start, end, inBuf, nil
}

// str scans a string whose opening quote is consumed, leaving p.pos after
// the closing quote, and reports whether it holds a backslash.
func (p *jparser) str() (escaped bool, err error) {
	for p.pos < len(p.in) {
		switch c := p.in[p.pos]; {
		case c == '"':
			p.pos++
			return escaped, nil
		case c == '\\':
			escaped = true
			if p.pos+1 >= len(p.in) {
				p.pos++
				return escaped, p.fail("want an escape, have end of input")
			}
			switch p.in[p.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				if p.pos+6 > len(p.in) || !isHex4(p.in[p.pos+2:p.pos+6]) {
					return escaped, p.fail("want \\u and four hex digits")
				}
				p.pos += 6
			default:
				p.pos++
				return escaped, p.fail("invalid escape %s in string", p.have())
			}
		case c < 0x20:
			return escaped, p.fail("control character %q in string", c)
		default:
			p.pos++
		}
	}
	return escaped, p.fail("unterminated string")
}

func isHex4(b []byte) bool {
	return isHex(b[0]) && isHex(b[1]) && isHex(b[2]) && isHex(b[3])
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *jparser) number() error {
	if p.in[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.in) && p.in[p.pos] == '0':
		p.pos++
	case p.digits() == 0:
		return p.fail("want a digit in number, have %s", p.have())
	}
	if p.pos < len(p.in) && p.in[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return p.fail("want a digit after '.', have %s", p.have())
		}
	}
	if p.pos < len(p.in) && (p.in[p.pos] == 'e' || p.in[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.in) && (p.in[p.pos] == '+' || p.in[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return p.fail("want a digit in exponent, have %s", p.have())
		}
	}
	return nil
}

func (p *jparser) digits() int {
	n := 0
	for p.pos < len(p.in) && '0' <= p.in[p.pos] && p.in[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

// literal scans true, false or null, by its first byte c.
func (p *jparser) literal(c byte) error {
	word := "null"
	switch c {
	case 't':
		word = "true"
	case 'f':
		word = "false"
	}
	if len(p.in)-p.pos < len(word) || string(p.in[p.pos:p.pos+len(word)]) != word {
		return p.fail("want %s", word)
	}
	p.pos += len(word)
	return nil
}
