// Package logcut cuts the fields of a log line that a client or a provider
// chose (a method, a path, a header value) to a bounded length, so that one
// request cannot write a line of 60 KB. serve's request log and the
// recorder's log share it. It uses the standard library only.
package logcut

import "unicode/utf8"

// The limits both logs cut to.
const (
	// Method bounds a logged method: real ones are under 10 bytes.
	Method = 16
	// Path bounds a logged path (and other text of ours that quotes one).
	Path = 1 << 10
	// Value bounds any other logged value: a header value, a name.
	Value = 256
)

// Cut returns s cut to at most limit bytes, at a character boundary, and
// s's length when it was cut (0 when not). It looks back at most one
// character's length for the boundary, so bytes that are not UTF-8 (a run
// of continuation bytes) are cut at the limit, not to nothing.
func Cut(s string, limit int) (string, int) {
	if len(s) <= limit {
		return s, 0
	}
	i := limit
	for i > limit-utf8.UTFMax && i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if !utf8.RuneStart(s[i]) {
		i = limit
	}
	return s[:i], len(s)
}
