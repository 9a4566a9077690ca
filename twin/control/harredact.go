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

// redactBody returns a request body that is not a form as the HAR shows
// it. A JSON body (by its media type, or its first byte) is rewritten with
// the value of every member under a credential name (scrub.IsCredential:
// password, api_key, refresh_token, …), at any depth, replaced by
// "[redacted]"; any other body is shown as sent. A JSON body that breaks
// off (the journal kept only its start) or is not JSON is shown up to
// where it breaks, never past it: what follows was not read as members,
// so it could hold a credential unredacted.
func redactBody(mime string, b []byte) string {
	if !strings.Contains(strings.ToLower(mime), "json") && !looksJSON(b) {
		return string(b)
	}
	return string(redactJSON(b))
}

// redactJSON walks b token by token, so its work is linear in the body
// and no recursion follows the body's nesting.
func redactJSON(b []byte) []byte {
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
		tok, err := dec.Token()
		if err != nil {
			return out
		}
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
			out = appendString(out, key)
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
			out = appendString(out, v)
		case json.Number:
			out = append(out, v...)
		case bool:
			if v {
				out = append(out, "true"...)
			} else {
				out = append(out, "false"...)
			}
		case nil:
			out = append(out, "null"...)
		}
		valueDone()
	}
}

func appendString(out []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return append(out, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
