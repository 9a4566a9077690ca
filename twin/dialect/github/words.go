package github

import (
	"fmt"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
)

// Word words p as GitHub's REST API words a request its schema refuses,
// "Invalid request." and a blank line before the reason:
// `"title" wasn't supplied.`, `"foo" is not a permitted key.`,
// `For 'properties/milestone', "3" is not an integer.`, `Only 65535
// characters are allowed; 91016 were supplied.`. Values are written in
// Ruby's notation (nil, "text"), as GitHub writes them. Kinds GitHub
// words no otherwise are Base's.
func (Dialect) Word(p dialect.Problem) string {
	const invalid = "Invalid request.\n\n"
	switch p.Kind {
	case dialect.MissingParam:
		return invalid + fmt.Sprintf("%q wasn't supplied.", lastKey(p.Param))
	case dialect.UnknownParam:
		return invalid + fmt.Sprintf("%q is not a permitted key.", lastKey(p.Param))
	case dialect.InvalidInteger:
		return invalid + notA(p, "an integer")
	case dialect.InvalidFloat:
		return invalid + notA(p, "a number")
	case dialect.InvalidBoolean:
		return invalid + notA(p, "a boolean")
	case dialect.InvalidString:
		return invalid + notA(p, "a string")
	case dialect.ExpectedHash:
		return invalid + notA(p, "an object")
	case dialect.ExpectedArray:
		return invalid + notA(p, "an array")
	case dialect.InvalidEnum:
		quoted := make([]string, len(p.Allowed))
		for i, a := range p.Allowed {
			quoted[i] = fmt.Sprintf("%q", a)
		}
		return invalid + fmt.Sprintf("For '%s', %s is not a member of [%s].", schemaPath(p.Param), sent(p), strings.Join(quoted, ", "))
	case dialect.TooLong:
		return invalid + fmt.Sprintf("Only %d characters are allowed; %d were supplied.", p.Limit, p.Have)
	}
	return dialect.Base{}.Word(p)
}

// notA is GitHub's sentence for a value of the wrong type.
func notA(p dialect.Problem, want string) string {
	if p.Nullable {
		want += " or null"
	}
	return fmt.Sprintf("For '%s', %s is not %s.", schemaPath(p.Param), sent(p), want)
}

// sent is the value in Ruby's notation: a string sent is quoted.
func sent(p dialect.Problem) string {
	if p.Sent == nil && p.Value != "" {
		return dialect.Inspect(p.Value)
	}
	return dialect.Inspect(p.Sent)
}

// schemaPath is where in the request schema a parameter's path leads,
// as GitHub names it: title is properties/title, author[name]
// properties/author/properties/name, labels[0] properties/labels/items.
func schemaPath(param string) string {
	var b strings.Builder
	for i, seg := range segments(param) {
		if i > 0 {
			b.WriteByte('/')
		}
		if isIndex(seg) {
			b.WriteString("items")
			continue
		}
		b.WriteString("properties/")
		b.WriteString(seg)
	}
	return b.String()
}

// lastKey is the last name of a parameter's path that is no index:
// labels[0][name] is name.
func lastKey(param string) string {
	segs := segments(param)
	for i := len(segs) - 1; i >= 0; i-- {
		if !isIndex(segs[i]) {
			return segs[i]
		}
	}
	return param
}

// segments splits a bracketed path: a[b][0] is a, b, 0.
func segments(param string) []string {
	name, rest, _ := strings.Cut(param, "[")
	segs := []string{name}
	for rest != "" {
		var seg string
		seg, rest, _ = strings.Cut(rest, "]")
		segs = append(segs, seg)
		rest = strings.TrimPrefix(rest, "[")
	}
	return segs
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
