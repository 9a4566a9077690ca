package openapi

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// maxPatternMatch bounds the string patternMatch builds: a pattern's
// counted repeats ({32}) are taken at their minimum, which a hostile
// description could make large.
const maxPatternMatch = 1024

// patternMatch is the simplest string a pattern matches (each repeat at
// its minimum, each class's first character, each alternation's first
// branch), when the pattern parses as RE2 and the string then matches
// it: Twilio's ^AD[0-9a-fA-F]{32}$ gives AD and 32 zeros.
func patternMatch(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !build(&b, re, 0) || b.Len() > maxPatternMatch {
		return "", false
	}
	if ok, err := regexp.MatchString(pattern, b.String()); err != nil || !ok {
		return "", false
	}
	return b.String(), true
}

func build(b *strings.Builder, re *syntax.Regexp, depth int) bool {
	if depth > 32 || b.Len() > maxPatternMatch {
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return false
		}
		b.WriteRune(re.Rune[0])
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch, syntax.OpStar, syntax.OpQuest:
	case syntax.OpCapture, syntax.OpPlus:
		return build(b, re.Sub[0], depth+1)
	case syntax.OpRepeat:
		for range re.Min {
			if !build(b, re.Sub[0], depth+1) {
				return false
			}
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !build(b, s, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return build(b, re.Sub[0], depth+1)
	default:
		return false
	}
	return true
}
