package scrub

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// A live credential (the recorder's --auth-env key) is searched for in
// more than its literal forms: providers put what they were sent into a
// Location percent-encoded, into PHP's JSON with "\/", into text as
// "\u0073\u006b…", into HTML as "&#115;&#x6b;&sol;…", into UTF-16 text,
// and any mix of these within one key. Listing every mix is impossible
// (each character has its own choice), so the text is decoded instead, a
// layer at a time, and every layer is searched for the key's forms
// (LiveForms), lowercased.
//
// One layer undoes, case-insensitively: %XX; \uXXXX, \u{X…}, \xXX and
// the JSON escapes; a backslash before any ASCII punctuation ("\/",
// Markdown's "\_"); HTML numeric entities (&#115; &#x73;, leading zeros,
// with or without the ";") and the named entities of ASCII punctuation
// (&sol; &plus; &equals; &lowbar; …). It drops NUL bytes, so UTF-16 text
// (LE or BE) of ASCII reads as ASCII, and lowercases ASCII letters, so a
// canonicalised header name or upper-case hex still matches.
const liveLayers = 4

// liveNeedles are LiveForms(v) lowercased, without repeats.
func liveNeedles(v string) [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	for _, f := range LiveForms(v) {
		f = strings.ToLower(f)
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, []byte(f))
		}
	}
	return out
}

// ContainsLive reports whether text holds the live credential v in any
// form this package searches for: raw, base64, hex, in any letter case,
// and under any mix of the escapes a layer undoes, up to four layers deep
// ("%255C" is two).
func ContainsLive(text []byte, v string) bool {
	if v == "" {
		return false
	}
	_, ok := findLive(text, liveNeedles(v), false)
	return ok
}

// liveSpan is where in the original text one found form starts and ends.
type liveSpan struct{ from, to int }

// findLive searches text and each decoded layer of it for a needle. With
// spans, it returns the span of the original text the first match came
// from.
func findLive(text []byte, needles [][]byte, spans bool) (liveSpan, bool) {
	if len(needles) == 0 || len(text) == 0 {
		return liveSpan{}, false
	}
	shortest := len(needles[0])
	for _, n := range needles {
		shortest = min(shortest, len(n))
	}
	if len(text) < shortest {
		return liveSpan{}, false // no layer makes text longer
	}
	cur := text
	var maps [][]int32 // maps[k][j]: where byte j of layer k+1 came from in layer k
	for layer := 0; layer <= liveLayers; layer++ {
		var next []byte
		var from []int32
		changed := true
		if layer == 0 {
			// Layer 0 is the text lowercased only: a key that holds "%41"
			// itself must be found before it is decoded away.
			next, from = lowerOnly(cur, spans)
		} else if bytes.IndexAny(cur, "%\\&\x00") < 0 {
			break // nothing to decode: most text
		} else {
			next, from, changed = unescapeLayer(cur, spans)
		}
		if !changed {
			break
		}
		if spans {
			maps = append(maps, from)
		}
		cur = next
		if len(cur) < shortest {
			break
		}
		for _, n := range needles {
			i := bytes.Index(cur, n)
			if i < 0 {
				continue
			}
			if !spans {
				return liveSpan{}, true
			}
			from, to := i, i+len(n)
			for k := len(maps) - 1; k >= 0; k-- {
				m := maps[k]
				prevLen := len(text)
				if k > 0 {
					prevLen = len(maps[k-1])
				}
				from = int(m[from])
				if to < len(m) {
					to = int(m[to])
				} else {
					to = prevLen
				}
			}
			return liveSpan{from, to}, true
		}
	}
	return liveSpan{}, false
}

// lowerOnly is text with its ASCII letters lowercased.
func lowerOnly(text []byte, spans bool) ([]byte, []int32) {
	out := make([]byte, len(text))
	var from []int32
	if spans {
		from = make([]int32, len(text))
	}
	for i, c := range text {
		out[i] = toLower(c)
		if spans {
			from[i] = int32(i)
		}
	}
	return out, from
}

// replaceLive returns v with every span that decodes to one of needles
// replaced by repl. Each replacement removes a match, so the loop ends;
// it is bounded anyway, and what it leaves is caught before writing.
func replaceLive(v string, needles [][]byte, repl string) string {
	for range 64 {
		sp, ok := findLive([]byte(v), needles, true)
		if !ok || sp.to <= sp.from {
			return v
		}
		v = v[:sp.from] + repl + v[sp.to:]
	}
	return v
}

// unescapeLayer undoes one layer of escapes in in (see liveLayers),
// lowercasing and dropping NULs, and reports whether it changed anything.
// With spans, it also returns, for each byte written, the offset in in of
// the escape it came from.
func unescapeLayer(in []byte, spans bool) ([]byte, []int32, bool) {
	out := make([]byte, 0, len(in))
	var from []int32
	if spans {
		from = make([]int32, 0, len(in))
	}
	changed := false
	emit := func(at int, b ...byte) {
		for _, c := range b {
			if c == 0 {
				continue
			}
			out = append(out, toLower(c))
			if spans {
				from = append(from, int32(at))
			}
		}
	}
	emitRune := func(at int, r rune) {
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		emit(at, buf[:n]...)
	}
	for i := 0; i < len(in); {
		c := in[i]
		switch {
		case c == 0:
			changed = true
			i++
			continue
		case c == '%' && i+2 < len(in) && isHex(in[i+1]) && isHex(in[i+2]):
			emit(i, unhex(in[i+1])<<4|unhex(in[i+2]))
			changed = true
			i += 3
			continue
		case c == '\\' && i+1 < len(in):
			if n, r, ok := backslash(in[i:]); ok {
				emitRune(i, r)
				changed = true
				i += n
				continue
			}
		case c == '&' && i+2 < len(in):
			if n, r, ok := entity(in[i:]); ok {
				emitRune(i, r)
				changed = true
				i += n
				continue
			}
		}
		emit(i, c)
		i++
	}
	return out, from, changed
}

// backslash decodes the escape at the start of s ("\u0073", "\u{73}",
// "\x73", "\n", "\/", "\_"), returning its length and rune.
func backslash(s []byte) (int, rune, bool) {
	switch e := toLower(s[1]); {
	case e == 'u' && len(s) > 2 && s[2] == '{':
		r, n := hexRun(s[3:], 6)
		if n > 0 && 3+n < len(s) && s[3+n] == '}' {
			return 4 + n, r, true
		}
	case e == 'u':
		if len(s) >= 6 && allHex(s[2:6]) {
			r, _ := hexRun(s[2:6], 4)
			return 6, r, true
		}
	case e == 'x':
		if len(s) >= 4 && allHex(s[2:4]) {
			r, _ := hexRun(s[2:4], 2)
			return 4, r, true
		}
	case e == 'n':
		return 2, '\n', true
	case e == 't':
		return 2, '\t', true
	case e == 'r':
		return 2, '\r', true
	case e == 'b':
		return 2, '\b', true
	case e == 'f':
		return 2, '\f', true
	case e < 0x80 && isPunct(e):
		return 2, rune(e), true
	}
	return 0, 0, false
}

// namedEntities are the HTML named character references of ASCII
// punctuation, lowercased: the ones a key's characters can hide behind.
var namedEntities = map[string]rune{
	"sol": '/', "plus": '+', "equals": '=', "lowbar": '_', "underbar": '_', "period": '.',
	"colon": ':', "semi": ';', "amp": '&', "quot": '"', "apos": '\'', "lt": '<', "gt": '>',
	"num": '#', "percnt": '%', "bsol": '\\', "excl": '!', "dollar": '$', "lpar": '(',
	"rpar": ')', "ast": '*', "midast": '*', "comma": ',', "quest": '?', "commat": '@',
	"lsqb": '[', "lbrack": '[', "rsqb": ']', "rbrack": ']', "hat": '^', "grave": '`',
	"lcub": '{', "lbrace": '{', "rcub": '}', "rbrace": '}', "verbar": '|', "vert": '|',
	"verticalline": '|', "newline": '\n', "tab": '\t',
}

// entity decodes the HTML character reference at the start of s.
func entity(s []byte) (int, rune, bool) {
	if s[1] == '#' {
		i, base := 2, 10
		if i < len(s) && toLower(s[i]) == 'x' {
			i, base = 3, 16
		}
		start := i
		var r rune
		for i < len(s) && i-start < 10 && (base == 16 && isHex(s[i]) || base == 10 && isDigit(s[i])) {
			r = r*rune(base) + rune(unhex(s[i]))
			i++
		}
		if i == start || r > utf8.MaxRune {
			return 0, 0, false
		}
		if i < len(s) && s[i] == ';' {
			i++
		}
		return i, r, true
	}
	end := bytes.IndexByte(s[1:min(len(s), 16)], ';')
	if end <= 0 {
		return 0, 0, false
	}
	name := strings.ToLower(string(s[1 : 1+end]))
	if r, ok := namedEntities[name]; ok {
		return end + 2, r, true
	}
	return 0, 0, false
}

func hexRun(s []byte, limit int) (rune, int) {
	var r rune
	n := 0
	for n < len(s) && n < limit && isHex(s[n]) {
		r = r<<4 | rune(unhex(s[n]))
		n++
	}
	return r, n
}

func allHex(s []byte) bool {
	for _, c := range s {
		if !isHex(c) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func isPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !isAlnum(c)
}
