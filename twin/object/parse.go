package object

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Parse decodes one JSON object, keeping field order: a later duplicate
// name sets the value in the first one's place. Numbers are json.Number;
// strings are decoded as encoding/json decodes them (invalid UTF-8 and
// lone surrogates become U+FFFD).
//
// It reads the bytes once, by hand, rather than token by token through
// encoding/json's Decoder, which allocates for every token: behaviour
// reads and writes entities as objects on every write, so parsing is on
// the write path.
func Parse(b []byte) (*Object, error) {
	p := parser{b: b}
	p.space()
	if p.i >= len(p.b) {
		return nil, errors.New("parse object: no JSON object, the input is empty")
	}
	if p.b[p.i] != '{' {
		return nil, errors.New("parse object: not a JSON object")
	}
	o, err := p.object(0)
	if err != nil {
		return nil, fmt.Errorf("parse object: %w", err)
	}
	p.space()
	if p.i != len(p.b) {
		return nil, errors.New("parse object: data after the object")
	}
	return o, nil
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 64

type parser struct {
	b []byte
	i int
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) fail(want string) error {
	if p.i >= len(p.b) {
		return fmt.Errorf("unexpected end of JSON input, want %s", want)
	}
	return fmt.Errorf("invalid character %q at offset %d, want %s", p.b[p.i], p.i, want)
}

// object reads an object at p.i, which holds '{'.
func (p *parser) object(depth int) (*Object, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	p.i++ // '{'
	o := &Object{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return o, nil
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.fail("a string naming a member")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.fail("':' after a member's name")
		}
		p.i++
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		o.Set(k, v)
		p.space()
		if p.i >= len(p.b) {
			return nil, p.fail("',' or '}'")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return o, nil
		default:
			return nil, p.fail("',' or '}'")
		}
	}
}

// value reads a value inside a container at depth.
func (p *parser) value(depth int) (any, error) {
	p.space()
	if p.i >= len(p.b) {
		return nil, p.fail("a value")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.fail("a value")
}

func (p *parser) array(depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	p.i++ // '['
	arr := []any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return arr, nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.space()
		if p.i >= len(p.b) {
			return nil, p.fail("',' or ']'")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return arr, nil
		default:
			return nil, p.fail("',' or ']'")
		}
	}
}

func (p *parser) literal(word string) error {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return p.fail(strconv.Quote(word))
	}
	p.i += len(word)
	return nil
}

// number reads a number in JSON's grammar, as a json.Number of its text.
func (p *parser) number() (any, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		return nil, p.fail("a digit")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !p.digits() {
			return nil, p.fail("a digit after '.'")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, p.fail("a digit in the exponent")
		}
	}
	return json.Number(p.b[start:p.i]), nil
}

// digits reads a run of digits and reports whether there was one.
func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// str reads a string at p.i, which holds '"'.
func (p *parser) str() (string, error) {
	p.i++
	start := p.i
	// The common string: printable ASCII, no escapes, copied once.
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := string(p.b[start:p.i])
			p.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.i++
	}
	buf := make([]byte, 0, p.i-start+16)
	buf = append(buf, p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("no control character in a string")
		case c == '\\':
			var err error
			if buf, err = p.escape(buf); err != nil {
				return "", err
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, p.b[p.i:p.i+size]...)
			}
			p.i += size
		}
	}
	return "", p.fail("'\"' ending the string")
}

// escape appends the character the escape at p.i ('\\') stands for.
func (p *parser) escape(buf []byte) ([]byte, error) {
	p.i++
	if p.i >= len(p.b) {
		return nil, p.fail("an escape")
	}
	c := p.b[p.i]
	p.i++
	switch c {
	case '"', '\\', '/':
		return append(buf, c), nil
	case 'b':
		return append(buf, '\b'), nil
	case 'f':
		return append(buf, '\f'), nil
	case 'n':
		return append(buf, '\n'), nil
	case 'r':
		return append(buf, '\r'), nil
	case 't':
		return append(buf, '\t'), nil
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return nil, p.fail("four hexadecimal digits after \\u")
		}
		if utf16.IsSurrogate(r) {
			// A pair is one character; a lone half is U+FFFD.
			save := p.i
			if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
				p.i += 2
				if r2, ok := p.hex4(); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						return utf8.AppendRune(buf, dec), nil
					}
				}
			}
			p.i = save
			r = utf8.RuneError
		}
		return utf8.AppendRune(buf, r), nil
	}
	p.i--
	return nil, p.fail("an escape character")
}

func (p *parser) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	p.i += 4
	return r, true
}
