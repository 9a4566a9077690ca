package scrub

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// A live credential (the recorder's --auth-env key) is searched for in
// more than its literal forms: providers put what they were sent into a
// Location percent-encoded, into PHP's JSON with "\/", into text as
// "\u0073\u006b…", into HTML as "&#115;&#x6b;&sol;…", into UTF-16 text,
// into base64 wrapped across lines, and any mix of these within one key.
// Listing every mix is impossible (each character has its own choice), so
// the text is decoded instead, a layer at a time, and every layer is
// searched for the key's forms (LiveForms), lowercased.
//
// One layer undoes, case-insensitively: %XX and IIS's %uXXXX; \uXXXX,
// \u{X…}, \xXX and the JSON escapes; a backslash before any ASCII
// punctuation ("\/", Markdown's "\_"); HTML numeric entities (&#115;
// &#x73;, with any number of leading zeros, with or without the ";") and
// the named entities of ASCII punctuation (&sol; &plus; &equals; &lowbar;
// …). It drops NUL bytes, so UTF-16 text (LE or BE) of ASCII reads as
// ASCII, and lowercases ASCII letters, so a canonicalised header name or
// upper-case hex still matches.
//
// Every escape is longer than what it decodes to, so a layer that changes
// the text shortens it: decoding goes on while a layer changes something,
// up to liveLayers layers, and costs at most liveLayers passes over the
// text whatever it holds ("%25" nested five times, "&amp;" chained five
// times, "\\\\u0073" from JSON nested in JSON are all within it).
const liveLayers = 16

// mayDecode reports whether b holds a byte without which a layer has
// nothing to undo: an escape's first byte, NUL, a soft line break's "=",
// or a lead byte of the invisible characters a layer drops. (IndexAny
// reads its set as UTF-8, so the lead bytes are looked for one by one.)
func mayDecode(b []byte) bool {
	return bytes.IndexAny(b, "%\\&\x00=") >= 0 ||
		bytes.IndexByte(b, 0xc2) >= 0 || bytes.IndexByte(b, 0xe2) >= 0 || bytes.IndexByte(b, 0xef) >= 0
}

// invisible reports whether r is a character a layer drops: the soft
// hyphen, the zero-width space, joiners and the byte-order mark, which
// show nothing and split a key that is still read as one.
func invisible(r rune) bool {
	switch r {
	case 0xad, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff:
		return true
	}
	return false
}

// liveNeedles are LiveForms(v) lowercased, without repeats; the first is
// v itself.
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
// form this package searches for: raw, base64 (also wrapped across lines,
// at any alignment inside longer base64), hex, in any letter case, and
// under any mix of the escapes a layer undoes, up to liveLayers layers
// deep ("%255C" is two), also inside base64.
func ContainsLive(text []byte, v string) bool {
	if v == "" {
		return false
	}
	return findLive(text, liveNeedles(v))
}

// liveSpan is where in the original text one found form starts and ends.
type liveSpan struct{ from, to int }

// findLive reports whether text, a decoded layer of it, or a base64 run
// in it (decoded, then searched layer by layer) holds a needle. It keeps
// two layers at a time and no offsets.
func findLive(text []byte, needles [][]byte) bool {
	found := false
	walkLive(text, needles, false, func(liveSpan) bool { found = true; return false })
	return found
}

// walkLive calls found for each needle found in text, in each of its
// layers and in its base64 runs, until found returns false. With spans,
// each call gets the span of the original text the match came from; then
// every layer carries, for each of its bytes, its offset in text (4 bytes
// a byte), which is why replaceLive walks a large text in windows.
func walkLive(text []byte, needles [][]byte, spans bool, found func(liveSpan) bool) {
	if len(needles) == 0 || len(text) == 0 {
		return
	}
	shortest := len(needles[0])
	for _, n := range needles {
		shortest = min(shortest, len(n))
	}
	if len(text) < shortest {
		return // no layer makes text longer
	}
	if !walkLayers(text, needles, shortest, liveLayers, spans, found) {
		return
	}
	walkBase64(text, needles, found)
}

// walkLayers searches text lowercased and each decoded layer of it; it
// returns false when found asked to stop.
func walkLayers(text []byte, needles [][]byte, shortest, layers int, spans bool, found func(liveSpan) bool) bool {
	// Layer 0 is the text lowercased only: a key that holds "%41" itself
	// must be found before it is decoded away.
	cur := lowerOnly(text)
	var orig []int32 // orig[j]: where byte j of cur came from in text; nil while cur is text's own bytes
	for layer := 0; ; layer++ {
		for _, n := range needles {
			for at := 0; ; {
				i := index(cur[at:], n)
				if i < 0 {
					break
				}
				from, to := at+i, at+i+len(n)
				at = to
				if orig != nil {
					from = int(orig[from])
					if to < len(orig) {
						to = int(orig[to])
					} else {
						to = len(text)
					}
				}
				if !found(liveSpan{from, to}) {
					return false
				}
				if !spans {
					break
				}
			}
		}
		if layer == layers || !mayDecode(cur) {
			return true // nothing left to decode: most text
		}
		next, nextOrig, changed := unescapeLayer(cur, orig, spans)
		if !changed || len(next) >= len(cur) || len(next) < shortest {
			return true
		}
		cur, orig = next, nextOrig
	}
}

// indexPrefix is how much of a long needle index looks for before it
// compares the rest: bytes.Index searches for up to 63 bytes with vector
// instructions (amd64 with AVX2), and falls back to Rabin-Karp, slower,
// for longer needles (the key's hex, octal and UTF-16 forms are).
const indexPrefix = 63

// index is bytes.Index(s, n), faster for long needles. A candidate that
// fails costs at most len(n) more bytes, so it stays linear in s.
func index(s, n []byte) int {
	if len(n) <= indexPrefix {
		return bytes.Index(s, n)
	}
	for at := 0; ; {
		i := bytes.Index(s[at:], n[:indexPrefix])
		if i < 0 {
			return -1
		}
		if bytes.HasPrefix(s[at+i:], n) {
			return at + i
		}
		at += i + 1
	}
}

// lowerOnly is text with its ASCII letters lowercased.
func lowerOnly(text []byte) []byte {
	out := make([]byte, len(text))
	for i, c := range text {
		out[i] = toLower(c)
	}
	return out
}

// liveWindow and liveOverlap bound what replaceLive holds at once: it
// walks a text longer than liveWindow in windows of that size, each
// overlapping the next by liveOverlap, so a form spread over at most
// liveOverlap bytes of the original is wholly inside one window. A longer
// one (a key under kilobytes of leading zeros) is left in place and the
// recorder's last check, which reads the text whole, refuses the exchange.
const (
	liveWindow  = 1 << 20
	liveOverlap = 64 << 10
)

// replaceLive returns v with every span that holds one of needles
// replaced by repl. Every match of a round is found in one walk (per
// window) and replaced in one go; a replacement can join text into a new
// form only by chance, so a few rounds suffice, and what they leave is
// caught before writing.
func replaceLive(v string, needles [][]byte, repl string) string {
	for range 4 {
		// Windows hold less than findLive's two whole layers, so there is
		// no quick look first: a round that finds nothing ends it.
		sp := liveSpans([]byte(v), needles)
		if len(sp) == 0 {
			return v
		}
		var b strings.Builder
		b.Grow(len(v))
		last := 0
		for _, s := range sp {
			b.WriteString(v[last:s.from])
			b.WriteString(repl)
			last = s.to
		}
		b.WriteString(v[last:])
		v = b.String()
	}
	return v
}

// liveSpans returns the spans of text that hold a needle, sorted and
// merged where they overlap or touch.
func liveSpans(text []byte, needles [][]byte) []liveSpan {
	var all []liveSpan
	for start := 0; ; start += liveWindow - liveOverlap {
		end := min(start+liveWindow, len(text))
		walkLive(text[start:end], needles, true, func(s liveSpan) bool {
			if s.to > s.from {
				all = append(all, liveSpan{start + s.from, start + s.to})
			}
			return true
		})
		if end == len(text) {
			break
		}
	}
	return mergeSpans(all)
}

// mergeSpans sorts spans and merges those that overlap or touch.
func mergeSpans(all []liveSpan) []liveSpan {
	slices.SortFunc(all, func(a, b liveSpan) int { return cmp.Or(a.from-b.from, a.to-b.to) })
	var out []liveSpan
	for _, s := range all {
		if k := len(out) - 1; k >= 0 && s.from <= out[k].to {
			out[k].to = max(out[k].to, s.to)
			continue
		}
		out = append(out, s)
	}
	return out
}

// unescapeLayer undoes one layer of escapes in in (see liveLayers),
// lowercasing and dropping NULs, and reports whether it changed anything.
// With spans, it also returns, for each byte written, the offset in the
// original text of the escape it came from: orig of it, or its offset in
// in when orig is nil.
func unescapeLayer(in []byte, orig []int32, spans bool) ([]byte, []int32, bool) {
	return unescape(in, orig, spans, true)
}

// unescape is unescapeLayer, lowercasing only when lower says so: Mask's
// patterns tell letter case apart.
func unescape(in []byte, orig []int32, spans, lower bool) ([]byte, []int32, bool) {
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
			if lower {
				c = toLower(c)
			}
			out = append(out, c)
			if spans {
				if orig != nil {
					from = append(from, orig[at])
				} else {
					from = append(from, int32(at))
				}
			}
		}
	}
	emitRune := func(at int, r rune) {
		if invisible(r) {
			return
		}
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
		case c >= 0x80:
			if r, n := utf8.DecodeRune(in[i:]); invisible(r) {
				changed = true
				i += n
				continue
			}
		case c == '=' && i+1 < len(in) && (in[i+1] == '\n' || in[i+1] == '\r' && i+2 < len(in) && in[i+2] == '\n'):
			// A quoted-printable soft line break: the line goes on.
			changed = true
			i += 2
			if in[i-1] == '\r' {
				i++
			}
			continue
		case c == '%' && i+2 < len(in) && isHex(in[i+1]) && isHex(in[i+2]):
			emit(i, unhex(in[i+1])<<4|unhex(in[i+2]))
			changed = true
			i += 3
			continue
		case c == '%' && i+5 < len(in) && toLower(in[i+1]) == 'u' && allHex(in[i+2:i+6]):
			// IIS's %uXXXX.
			r, _ := hexRun(in[i+2:i+6], 4)
			emitRune(i, r)
			changed = true
			i += 6
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
		// Leading zeros are skipped, not counted: "\u{0000073}" is "s".
		z := zeros(s[3:])
		r, n := hexRun(s[3+z:], 6)
		if end := 3 + z + n; z+n > 0 && end < len(s) && s[end] == '}' && r <= utf8.MaxRune {
			return end + 1, r, true
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
	case e == '\n':
		return 2, 0, true // a line continued (JavaScript, shell): nothing
	case e == '\r' && len(s) > 2 && s[2] == '\n':
		return 3, 0, true
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
	"shy": 0xad, "zerowidthspace": 0x200b, "zwnj": 0x200c, "zwj": 0x200d, "nobreak": 0x2060,
}

// entity decodes the HTML character reference at the start of s.
func entity(s []byte) (int, rune, bool) {
	if s[1] == '#' {
		i, base := 2, 10
		if i < len(s) && toLower(s[i]) == 'x' {
			i, base = 3, 16
		}
		start := i
		// A browser reads any number of leading zeros ("&#000000000115;"),
		// so they are skipped, not counted; 7 digits after them hold every
		// code point in either base.
		i += zeros(s[i:])
		digits := i
		var r rune
		for i < len(s) && i-digits < 7 && (base == 16 && isHex(s[i]) || base == 10 && isDigit(s[i])) {
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

// zeros is how many '0' s starts with.
func zeros(s []byte) int {
	n := 0
	for n < len(s) && s[n] == '0' {
		n++
	}
	return n
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
