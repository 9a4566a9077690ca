package scrub

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON returns body, compacted, scrubbed as a response body: every string
// under a personal field replaced by its token, every string under a
// credential name by its SecretToken (see the package doc), and card
// numbers and known credential shapes replaced in every string. Keys keep
// their order and everything else keeps its bytes: numbers are not
// reformatted and untouched strings not re-escaped. Invalid JSON is an
// error.
func (s *Scrubber) JSON(body []byte) ([]byte, error) {
	return (&Pass{s: s}).ResponseJSON(body)
}

// ResponseJSON is JSON, remembering what it replaced.
func (p *Pass) ResponseJSON(body []byte) ([]byte, error) {
	return p.json(body, false, false)
}

// RequestJSON scrubs a request body: as ResponseJSON, except that members
// under credential names are removed, not tokenized.
func (p *Pass) RequestJSON(body []byte) ([]byte, error) {
	return p.json(body, true, false)
}

// EchoJSON replaces, in the strings of a scrubbed document, every value
// this pass has removed or tokenized so far (see Echo). It scrubs again as
// ResponseJSON does, which changes nothing that is already scrubbed.
func (p *Pass) EchoJSON(body []byte) ([]byte, error) {
	return p.json(body, false, true)
}

func (p *Pass) json(body []byte, request, echo bool) ([]byte, error) {
	if !json.Valid(body) {
		// Compact reports where the document breaks; Valid only says that it does.
		err := json.Compact(new(bytes.Buffer), body)
		return nil, fmt.Errorf("scrub json: %w", err)
	}
	w := walker{s: p.s, p: p, request: request, echo: echo, oauth: oauthJSON(body), in: body, out: make([]byte, 0, len(body))}
	w.value(plain)
	return w.out, nil
}

// mode is what happens to the strings of the value being walked.
type mode uint8

const (
	plain    mode = iota // look for personal and credential fields
	personal             // tokenize every string
	verbatim             // copy as is, but for credentials
	secret               // every string is a credential
)

// walker copies a document that json.Valid accepted, so it checks nothing.
// Its recursion is bounded by the nesting json.Valid allows (10,000).
type walker struct {
	s       *Scrubber
	p       *Pass
	request bool // remove credential members instead of tokenizing them
	echo    bool // replace the pass's values in every string
	oauth   bool // an OAuth document: "code" is a credential (oauthJSON)
	in      []byte
	i       int
	out     []byte
}

func (w *walker) value(m mode) {
	w.space()
	switch w.in[w.i] {
	case '{':
		w.object(m)
	case '[':
		w.array(m)
	case '"':
		w.leaf(w.str(), m)
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
	first := true
	for {
		w.space()
		key := w.str()
		mark := len(w.out)
		if !first {
			w.out = append(w.out, ',')
		}
		w.out = append(w.out, key...)
		w.out = append(w.out, ':')
		w.space()
		w.i++ // ':'
		w.space()
		cm, drop := w.child(m, key)
		w.value(cm)
		if drop {
			w.out = w.out[:mark] // walked for its values, which the pass notes
		} else {
			first = false
		}
		w.space()
		c := w.in[w.i]
		w.i++
		if c == '}' {
			w.out = append(w.out, '}')
			return
		}
	}
}

// child is the mode of the value under key in an object walked in mode m,
// and whether that member is removed.
func (w *walker) child(m mode, key []byte) (mode, bool) {
	if m == secret {
		return secret, false
	}
	if inner := key[1 : len(key)-1]; bytes.IndexByte(inner, '\\') < 0 {
		return w.childNamed(m, w.classify(inner), exempt(w.s, inner), m == plain && listed(w.s, inner))
	}
	name := []byte(unquote(key))
	return w.childNamed(m, w.classify(name), exempt(w.s, name), m == plain && listed(w.s, name))
}

// classify is the package's classify, with "code" a credential in an
// OAuth document.
func (w *walker) classify(name []byte) class {
	if w.oauth && len(name) == 4 && bytes.EqualFold(name, []byte("code")) {
		return credential
	}
	return classify(name)
}

func (w *walker) childNamed(m mode, cls class, ex, pii bool) (mode, bool) {
	switch cls {
	case credential:
		return secret, w.request
	case countable:
		// "max_tokens": 100 is a count, "tokens": ["…"] are secrets.
		c := w.in[w.i]
		return secret, w.request && c != '-' && !isDigit(c)
	}
	switch {
	case m == verbatim || ex:
		return verbatim, false
	case pii:
		return personal, false
	}
	return m, false
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

// leaf writes the quoted JSON string raw as mode m wants it.
func (w *walker) leaf(raw []byte, m mode) {
	inner := raw[1 : len(raw)-1]
	switch m {
	case personal:
		if !w.p.track {
			// Nothing to remember: tokenize without making strings.
			w.out = append(w.out, '"')
			if bytes.IndexByte(inner, '\\') < 0 {
				w.out = w.s.appendToken(w.out, string(inner)) // short values convert on the stack
			} else {
				w.out = w.s.appendToken(w.out, unquote(raw))
			}
			w.out = append(w.out, '"')
			return
		}
		v := w.decode(raw)
		tok := w.s.Token("", v)
		w.p.note(v, tok)
		w.writeString(tok) // tokens need no escaping
		return
	case secret:
		v := w.decode(raw)
		tok := w.s.SecretToken(v)
		w.p.note(v, tok)
		w.writeString(tok)
		return
	}
	if !w.echo && !mayHoldValue(inner) {
		w.out = append(w.out, raw...)
		return
	}
	v := w.decode(raw)
	nv := w.p.value(v)
	if w.echo {
		nv = w.p.Echo(nv)
	}
	if nv == v {
		w.out = append(w.out, raw...)
		return
	}
	w.writeString(nv)
}

// mayHoldValue reports whether a raw string can hold a card number or a
// known credential: most strings are copied without being decoded.
func mayHoldValue(inner []byte) bool {
	digits := 0
	for _, c := range inner {
		if isDigit(c) {
			if digits++; digits >= cardMin {
				return true
			}
		}
	}
	return containsAny(inner, knownAnchorBytes) || bytes.IndexByte(inner, '\\') >= 0
}

func (w *walker) decode(raw []byte) string {
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	return unquote(raw)
}

// writeString writes v as a JSON string.
func (w *walker) writeString(v string) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			b, _ := json.Marshal(v)
			w.out = append(w.out, b...)
			return
		}
	}
	w.out = append(w.out, '"')
	w.out = append(w.out, v...)
	w.out = append(w.out, '"')
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
