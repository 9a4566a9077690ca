package object

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// MarshalJSON encodes o compactly, in field order.
func (o *Object) MarshalJSON() ([]byte, error) {
	return o.AppendJSON(nil), nil
}

// AppendJSON appends the compact encoding of o to buf.
func (o *Object) AppendJSON(buf []byte) []byte {
	buf = append(buf, '{')
	for i, k := range o.keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = AppendString(buf, k)
		buf = append(buf, ':')
		buf = AppendValue(buf, o.vals[i])
	}
	return append(buf, '}')
}

// AppendValue appends the compact encoding of v. Values outside this
// package's value set are encoded with encoding/json.
func AppendValue(buf []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(buf, "null"...)
	case bool:
		return strconv.AppendBool(buf, t)
	case json.Number:
		return append(buf, t...)
	case string:
		return AppendString(buf, t)
	case *Object:
		return t.AppendJSON(buf)
	case []any:
		buf = append(buf, '[')
		for i, e := range t {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendValue(buf, e)
		}
		return append(buf, ']')
	case json.RawMessage:
		// JSON already made (an answer's body carried in an event): the
		// caller's to make valid, written as it is.
		return append(buf, t...)
	case int64:
		return strconv.AppendInt(buf, t, 10)
	case int:
		return strconv.AppendInt(buf, int64(t), 10)
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return append(buf, "null"...)
		}
		return append(buf, b...)
	}
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string. Like providers' encoders and
// unlike encoding/json, it leaves <, > and & alone; it escapes quotes,
// backslashes, control characters, U+2028 and U+2029, and replaces
// invalid UTF-8 with U+FFFD.
//
// twin/canon has its own quoting on purpose: canonical forms must match
// encoding/json byte for byte (\b, \f, raw U+FFFD), while this one writes
// what is served, in the provider's style.
func AppendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
