package scrub

import (
	"bytes"
	"strings"
)

// Mask returns v with every card number (found as Scrubber.Value finds
// them, by the Luhn check) written as zeros in its own layout, and every
// known credential shape replaced by marker. It needs no key: it is for
// views of data a twin keeps as it was sent, such as the HAR export of an
// agent's requests, where a token that joins up with other records is not
// needed and a keyed token of a card number (a few billion candidates)
// would be worth guessing. An all-zero number passes the Luhn check and
// starts with 0000, which no issuer uses, so Mask(Mask(v)) == Mask(v).
func Mask(v, marker string) string {
	v = replaceCards(v, zeroCard, nil)
	return replaceKnown(v, func(*KnownCredential, string) string { return marker }, nil)
}

func zeroCard(card string) string {
	b := []byte(card)
	for i, c := range b {
		if isDigit(c) {
			b[i] = '0'
		}
	}
	return string(b)
}

// maskLayers bounds how many layers of escapes MaskDecoded undoes.
const maskLayers = 4

// MaskDecoded is Mask, and also masks what Mask finds once the text's
// escapes are undone (percent escapes, HTML entities, backslash escapes,
// as the live-key search undoes them, up to maskLayers layers): a text
// body an agent sent as "4242%204242%204242%204242" or "sk_live&#95;…"
// holds a card number or a credential all the same. What is found in a
// decoded layer is replaced, in the text as it was, by marker: the
// escapes it spans and the separators between its digits with it.
func MaskDecoded(v, marker string) string {
	v = Mask(v, marker)
	cur := []byte(v)
	var orig []int32
	var spans []liveSpan
	for range maskLayers {
		if bytes.IndexAny(cur, "%\\&") < 0 {
			break
		}
		next, nextOrig, changed := unescape(cur, orig, true, false)
		if !changed || len(next) >= len(cur) {
			break
		}
		cur, orig = next, nextOrig
		spans = append(spans, maskedSpans(string(cur), orig, len(v))...)
	}
	if len(spans) == 0 {
		return v
	}
	var b strings.Builder
	last := 0
	for _, s := range mergeSpans(spans) {
		b.WriteString(v[last:s.from])
		b.WriteString(marker)
		last = s.to
	}
	b.WriteString(v[last:])
	return b.String()
}

// maskedSpans returns the spans of the original text (of length n) that
// the bytes Mask would change in the decoded text d came from; orig maps
// d's bytes to it. Changed bytes at most one byte apart (a card's digit
// groups and their separator) are one span.
func maskedSpans(d string, orig []int32, n int) []liveSpan {
	cards := replaceCards(d, zeroCard, nil)
	// Replaced in place by NULs, which a decoded layer never holds (it
	// drops them), so the replacement keeps every offset.
	known := replaceKnown(cards, func(_ *KnownCredential, m string) string { return strings.Repeat("\x00", len(m)) }, nil)
	var out []liveSpan
	end := func(i int) int {
		if i < len(orig) {
			return int(orig[i])
		}
		return n
	}
	for i := 0; i < len(d); {
		if cards[i] == d[i] && known[i] != 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(d) && (cards[j] != d[j] || known[j] == 0 || j+1 < len(d) && (cards[j+1] != d[j+1] || known[j+1] == 0)) {
			j++
		}
		out = append(out, liveSpan{int(orig[i]), end(j)})
		i = j
	}
	return out
}
