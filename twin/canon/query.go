package canon

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// span locates one parameter in canonicalPairs' buffer: key is
// buf[start:mid], value buf[mid:end].
type span struct{ start, mid, end int }

// canonicalPairs does the work of Query and Form; kind names the input in
// errors.
func canonicalPairs(kind, s string) (string, error) {
	if isCanonicalPairs(s) {
		return s, nil
	}
	// Most requests carry a handful of short parameters: keep the working
	// memory on the stack so the result string is the only allocation.
	var (
		spanArr [16]span
		bufArr  [512]byte
		spans   = spanArr[:0]
		buf     = bufArr[:0]
		err     error
	)
	for s != "" {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if pair == "" {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		start := len(buf)
		if buf, err = appendCanonical(buf, key); err != nil {
			return "", fmt.Errorf("%s key %q has %w", kind, key, err)
		}
		mid := len(buf)
		if buf, err = appendCanonical(buf, value); err != nil {
			return "", fmt.Errorf("%s value of key %q has %w", kind, key, err)
		}
		spans = append(spans, span{start, mid, len(buf)})
	}
	slices.SortStableFunc(spans, func(a, b span) int {
		return bytes.Compare(buf[a.start:a.mid], buf[b.start:b.mid])
	})
	var out strings.Builder
	out.Grow(len(buf) + 2*len(spans))
	for i, sp := range spans {
		if i > 0 {
			out.WriteByte('&')
		}
		out.Write(buf[sp.start:sp.mid])
		out.WriteByte('=')
		out.Write(buf[sp.mid:sp.end])
	}
	return out.String(), nil
}

// isCanonicalPairs reports whether canonicalPairs would return s unchanged:
// no empty parameters, every parameter has "=", every key and value is
// canonically escaped, and keys are in order.
func isCanonicalPairs(s string) bool {
	prev := ""
	for s != "" {
		pair, rest, more := strings.Cut(s, "&")
		if more && rest == "" {
			return false // a trailing "&" is an empty parameter
		}
		s = rest
		key, value, ok := strings.Cut(pair, "=")
		if !ok || key < prev || !isCanonical(key) || !isCanonical(value) {
			return false
		}
		prev = key
	}
	return true
}

// isCanonical reports whether appendCanonical would copy s unchanged.
func isCanonical(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case unreserved[c] || c == '+':
		case c == '%':
			if i+2 >= len(s) || !isUpperHex(s[i+1]) || !isUpperHex(s[i+2]) {
				return false
			}
			if b := unhex(s[i+1])<<4 | unhex(s[i+2]); unreserved[b] || b == ' ' {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

// appendCanonical unescapes s and appends it escaped once more, the way
// url.QueryEscape escapes, in one pass.
func appendCanonical(dst []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '+':
			c = ' '
		case '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return dst, badEscape(s[i:])
			}
			c = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
		}
		dst = appendEscaped(dst, c)
	}
	return dst, nil
}

// unescape decodes one query component. It allocates only when s holds an
// escape.
func unescape(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '+':
			c = ' '
		case '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", badEscape(s[i:])
			}
			c = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
		}
		b = append(b, c)
	}
	return string(b), nil
}

// badEscape describes the escape at the start of s.
func badEscape(s string) error {
	return fmt.Errorf("an invalid escape %q: want %% followed by two hex digits", s[:min(len(s), 3)])
}

func appendEscaped(dst []byte, c byte) []byte {
	switch {
	case unreserved[c]:
		return append(dst, c)
	case c == ' ':
		return append(dst, '+')
	}
	return append(dst, '%', upperHex[c>>4], upperHex[c&15])
}

const upperHex = "0123456789ABCDEF"

// unreserved holds the bytes url.QueryEscape leaves as they are.
var unreserved = func() (t [256]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~'
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isUpperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
