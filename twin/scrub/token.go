package scrub

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
)

const (
	tokPrefix   = "tok_"
	tokHex      = 12 // hex digits of the MAC in a token: 48 bits
	emailDomain = "@example.invalid"
	phonePrefix = "+1555"
	phoneDigits = 7
)

// Token returns the token for value: the same key and value always give the
// same token, whatever field it came from. field is not used, so that one
// email recorded as "email" and as "billing_email" stays one email; it is
// taken so that call sites read as "the token for this field's value".
//
// The token keeps the value's shape:
//
//   - an email (one "@", a dot inside the domain) becomes
//     "tok_" + 12 hex + "@example.invalid", which no mail server accepts;
//   - a phone number (7 to 20 bytes of digits, spaces, dashes and
//     parentheses, an optional leading "+", at least 7 digits and at least
//     half digits, and not a YYYY-MM-DD date) becomes "+1555" and 7 digits,
//     a number in the unassigned 555 area code;
//   - anything else becomes "tok_" + 12 hex.
//
// Dots are not phone characters, so an IPv4 address is not mistaken for a
// phone. The empty string, and a value already of one of the three token
// shapes, are returned unchanged, which makes scrubbing idempotent.
func (s *Scrubber) Token(field, value string) string {
	if value == "" || isToken(value) {
		return value
	}
	var buf [maxToken]byte
	return string(s.appendToken(buf[:0], value))
}

// maxToken is the length of the longest token, the email shape.
const maxToken = len(tokPrefix) + tokHex + len(emailDomain)

// appendToken appends the token of value to dst, so that JSON can write
// tokens without making strings of them.
func (s *Scrubber) appendToken(dst []byte, value string) []byte {
	if value == "" || isToken(value) {
		return append(dst, value...)
	}
	m := s.macs.Get().(*mac)
	defer s.macs.Put(m)
	m.h.Reset()
	m.in = append(m.in[:0], value...)
	m.h.Write(m.in)
	sum := m.h.Sum(m.sum[:0])
	if cap(m.in) > 4<<10 {
		m.in = nil // do not pin one huge value in the pool
	}
	switch {
	case isEmail(value):
		dst = append(dst, tokPrefix...)
		dst = hex.AppendEncode(dst, sum[:tokHex/2])
		return append(dst, emailDomain...)
	case isPhone(value):
		dst = append(dst, phonePrefix...)
		var digits [phoneDigits]byte
		v := binary.BigEndian.Uint64(sum[:8]) % 10_000_000
		for i := len(digits) - 1; i >= 0; i-- {
			digits[i] = byte('0' + v%10)
			v /= 10
		}
		return append(dst, digits[:]...)
	default:
		dst = append(dst, tokPrefix...)
		return hex.AppendEncode(dst, sum[:tokHex/2])
	}
}

// isToken reports whether v is exactly one of the shapes Token produces.
func isToken(v string) bool {
	switch len(v) {
	case len(phonePrefix) + phoneDigits:
		return strings.HasPrefix(v, phonePrefix) && allDigits(v[len(phonePrefix):])
	case len(tokPrefix) + tokHex:
		return strings.HasPrefix(v, tokPrefix) && lowerHex(v[len(tokPrefix):])
	case len(tokPrefix) + tokHex + len(emailDomain):
		return strings.HasPrefix(v, tokPrefix) && strings.HasSuffix(v, emailDomain) &&
			lowerHex(v[len(tokPrefix):len(tokPrefix)+tokHex])
	}
	return false
}

func isEmail(v string) bool {
	at := strings.IndexByte(v, '@')
	if at <= 0 || strings.IndexByte(v[at+1:], '@') >= 0 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' {
			return false
		}
	}
	domain := v[at+1:]
	dot := strings.IndexByte(domain, '.')
	return dot > 0 && dot < len(domain)-1
}

func isPhone(v string) bool {
	if len(v) < 7 || len(v) > 20 || isDate(v) {
		return false
	}
	digits := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == ' ' || c == '-' || c == '(' || c == ')':
		case c == '+' && i == 0:
		default:
			return false
		}
	}
	return digits >= 7 && 2*digits >= len(v)
}

// isDate reports whether v is YYYY-MM-DD, which is all digits and dashes but
// is a date of birth, not a phone number.
func isDate(v string) bool {
	return len(v) == 10 && v[4] == '-' && v[7] == '-' &&
		allDigits(v[:4]) && allDigits(v[5:7]) && allDigits(v[8:])
}

func allDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

func lowerHex(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
