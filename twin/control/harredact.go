package control

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/wraithdev/wraith/twin/scrub"
)

// isForm reports whether a request body of this media type is read as
// form pairs: a form type, or none at all for a body that is not JSON (as
// the engine reads it).
func isForm(mime string, body []byte) bool {
	if mime == "" {
		return !looksJSON(body)
	}
	return strings.HasPrefix(strings.ToLower(mime), "application/x-www-form-urlencoded")
}

func looksJSON(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

// isJSONBody reports whether a body is shown as JSON: its media type
// says so, or its first byte does.
func isJSONBody(mime string, b []byte) bool {
	return strings.Contains(strings.ToLower(mime), "json") || looksJSON(b)
}

// redactBody returns an answer's body as the HAR shows it: a JSON body
// through redactJSON, any other with card numbers and known credential
// shapes masked, also where escapes hide them (scrub.MaskDecoded). A twin answers with what an agent sent it (a payment
// method's card number), and the HAR is a file that travels.
func redactBody(mime string, b []byte) string {
	if !isJSONBody(mime, b) {
		return scrub.MaskDecoded(string(b), redacted)
	}
	return string(redactJSON(b, true))
}

// redactJSON returns a JSON body as the HAR shows it: the value of every
// member under a credential name (scrub.IsCredential: password, api_key,
// refresh_token, …), at any depth, replaced by "[redacted]", and, with
// mask, card numbers and known credential shapes in strings masked
// (scrub.Mask), and a number that is a card number redacted whole (JSON
// has no leading zeros to mask it with). Everything else is written as
// the journal kept it, byte for byte but for the whitespace between
// tokens: a string keeps its
// escapes, because decoding "\u0073k_live_…" would write in plain text
// what the journal held only escaped. A string that needs masking and
// has escapes json.Marshal would not write is redacted whole, for the
// same reason. A body that breaks off (the journal kept only its start)
// or is not JSON is shown up to where it breaks, never past it: what
// follows was not read as members, so it could hold a credential
// unredacted.
//
// It walks b token by token, so its work is linear in the body and no
// recursion follows the body's nesting.
func redactJSON(b []byte, mask bool) []byte {
	type frame struct {
		obj     bool
		n       int  // members or elements written
		wantKey bool // in an object, the next token is a member name
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	out := make([]byte, 0, len(b))
	var stack []frame
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	valueDone := func() {
		if f := top(); f != nil && f.obj {
			f.wantKey = true
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		// The token as the body wrote it: what the decoder read, without
		// the separators and whitespace before it.
		raw := bytes.TrimLeft(b[start:dec.InputOffset()], " \t\r\n,:")
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			out = append(out, byte(d))
			valueDone()
			continue
		}
		if f := top(); f != nil && (!f.obj || f.wantKey) {
			if f.n > 0 {
				out = append(out, ',')
			}
			f.n++
		}
		if f := top(); f != nil && f.obj && f.wantKey {
			key, _ := tok.(string)
			out = append(out, raw...)
			out = append(out, ':')
			f.wantKey = false
			if scrub.IsCredential(key) {
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return out // the value broke off: none of it is shown
				}
				out = appendString(out, redacted)
				f.wantKey = true
			}
			continue
		}
		switch v := tok.(type) {
		case json.Delim:
			stack = append(stack, frame{obj: v == '{', wantKey: v == '{'})
			out = append(out, byte(v))
			continue
		case string:
			out = appendMasked(out, raw, v, mask)
		case json.Number:
			// A card number sent as a JSON number ({"n":4242424242424242})
			// is a card number all the same. Masked, it would be written
			// with leading zeros, which JSON does not allow: it is
			// redacted whole, as a string.
			if mask && scrub.Mask(string(raw), redacted) != string(raw) {
				out = appendString(out, redacted)
			} else {
				out = append(out, raw...)
			}
		default: // true, false, null
			out = append(out, raw...)
		}
		valueDone()
	}
}

// appendMasked appends the JSON string raw, whose value is v, masked when
// mask says so (see redactJSON).
func appendMasked(out, raw []byte, v string, mask bool) []byte {
	if !mask {
		return append(out, raw...)
	}
	m := scrub.Mask(v, redacted)
	if m == v {
		return append(out, raw...)
	}
	if bytes.Equal(appendString(nil, v), raw) {
		return appendString(out, m)
	}
	return appendString(out, redacted)
}

func appendString(out []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return append(out, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
