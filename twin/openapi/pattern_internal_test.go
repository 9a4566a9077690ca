package openapi

import (
	"regexp"
	"strings"
	"testing"
)

// TestPatternMatch: the simplest match of a pattern is one the pattern
// matches; a pattern RE2 cannot parse, or one whose simplest match would
// pass the bound, gives none.
func TestPatternMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, want string
		ok            bool
	}{
		{`^AC[0-9a-fA-F]{32}$`, "AC" + strings.Repeat("0", 32), true},
		{`^[a-z]+(-[a-z]+)*$`, "a", true},
		{`^(sms|voice)$`, "sms", true},
		{`^\+[1-9]\d{1,14}$`, "+10", true},
		{`^(?!x)y$`, "", false},          // a lookahead: not RE2
		{`^(a{1000}){1000}$`, "", false}, // past maxPatternMatch
		{`^[^\s]{3,}$`, "", true},        // checked against the pattern whatever it gives
	} {
		have, ok := patternMatch(c.pattern)
		if ok != c.ok || (c.want != "" && have != c.want) {
			t.Errorf("patternMatch(%q): want %q %v, have %q %v", c.pattern, c.want, c.ok, have, ok)
		}
		if ok && !regexp.MustCompile(c.pattern).MatchString(have) {
			t.Errorf("patternMatch(%q) = %q, which it does not match", c.pattern, have)
		}
	}
}
