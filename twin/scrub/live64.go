package scrub

// Base64 text holding the key is found two ways. LiveForms lists the
// base64 of the key alone and the characters it leaves inside longer
// base64 at each of the three alignments; those are fixed strings,
// searched in every layer. But base64 wrapped across lines (MIME's 76
// columns, PEM's 64) puts a line break anywhere inside the key's
// characters, and base64 of an escaped key (of "%73%6b…") holds none of
// them. So runs of the base64 alphabet are also decoded and the decoded
// bytes searched as text is, layer by layer.
//
// A run is a stretch of base64 characters (both alphabets) of at least
// minBase64Run, where line breaks — CR and LF, and the "\r" and "\n" a
// JSON string writes for them, with any number of backslashes (JSON in
// JSON) — are skipped and "\/" (PHP's JSON) reads as "/"; it ends at any
// other byte or at "=". It is decoded from its
// first characters: base64 that starts mid-run (letters glued before it)
// is decoded from each of its first four characters, so any alignment is
// found. Each byte of the text is in at most one run and each run is
// decoded four times, through at most base64Layers layers, so the cost is
// linear; base64 of base64 is not decoded twice.

// baseCut and minCore bound the key's core searched for in decoded
// base64 (walkBase64): the key without up to 8 characters at either end,
// leaving at least 12.
const (
	baseCut = 8
	minCore = 12
)

// minBase64Run is the shortest run decoded: 16 characters are 12 bytes,
// under any key worth searching for (the needles' shortest form is longer).
const minBase64Run = 16

// walkBase64 decodes every base64 run of text and searches the decoded
// bytes; a match's span is the whole run.
func walkBase64(text []byte, needles [][]byte, found func(liveSpan) bool) {
	// Base64 split into pieces (wrapped lines each written apart, chunks
	// of a stream) decodes, piece by piece, to the key without its first
	// or last characters: in decoded runs the key's core, all but its
	// first and last baseCut characters (fewer, down to 1, to leave
	// minCore), is searched for too; a key under minCore+2 is searched for
	// whole.
	if k := needles[0]; len(k) >= minCore+2 {
		cut := min(baseCut, (len(k)-minCore)/2)
		needles = append(needles[:len(needles):len(needles)], k[cut:len(k)-cut])
	}
	// The values by byte, built per call (no package state): the loop
	// below reads one per byte of text.
	var tab [256]int8
	for c := range tab {
		tab[c] = int8(b64Value(byte(c)))
	}
	var vals, buf []byte
	for i := 0; i < len(text); {
		if tab[text[i]] < 0 {
			i++
			continue
		}
		// Most runs are words: measure a run of plain characters first
		// and skip it when it is short and ends at a byte no run goes
		// on through.
		j := i
		for j < len(text) && tab[text[j]] >= 0 {
			j++
		}
		if j-i < minBase64Run && (j == len(text) || text[j] != '\r' && text[j] != '\n' && text[j] != '\\') {
			i = j
			continue
		}
		start := i
		vals = vals[:0]
		for i < len(text) {
			c := text[i]
			if c == '\r' || c == '\n' {
				i++
				continue
			}
			if c == '\\' {
				// Any number of backslashes: JSON in JSON doubles them.
				j := i
				for j < len(text) && text[j] == '\\' {
					j++
				}
				if j < len(text) {
					switch text[j] {
					case 'r', 'n':
						i = j + 1
						continue
					case '/':
						c = '/'
						i = j
					}
				}
			}
			v := tab[c]
			if v < 0 {
				break
			}
			vals = append(vals, byte(v))
			i++
		}
		if len(vals) < minBase64Run {
			continue
		}
		// Decoded from each of its first four characters: base64 glued
		// to a character of the alphabet before it (UTF-7's "+", a word)
		// starts one to three characters in.
		for off := 0; off < 4; off++ {
			buf = decodeB64(buf[:0], vals[off:])
			hit, stop := false, false
			walkLayersBase64(buf, needles, func(liveSpan) bool {
				hit, stop = true, !found(liveSpan{start, i})
				return false // one span, the whole run, is enough for it
			})
			if stop {
				return
			}
			if hit {
				break
			}
		}
	}
}

// decodeB64 appends to dst the bytes the 6-bit values vals decode to.
func decodeB64(dst, vals []byte) []byte {
	var acc uint32
	bits := 0
	for _, v := range vals {
		acc = acc<<6 | uint32(v)
		bits += 6
		if bits >= 8 {
			bits -= 8
			dst = append(dst, byte(acc>>bits))
		}
	}
	return dst
}

// base64Layers bounds the layers of escapes undone in decoded base64:
// base64 of an escaped key ("%73%6b…", "\u0073…", UTF-16) is one layer;
// binary that decodes to noise is not walked through sixteen.
const base64Layers = 2

// walkLayersBase64 searches decoded base64 as text, without decoding
// base64 in it again.
func walkLayersBase64(dec []byte, needles [][]byte, found func(liveSpan) bool) {
	shortest := len(needles[0])
	for _, n := range needles {
		shortest = min(shortest, len(n))
	}
	if len(dec) < shortest {
		return
	}
	walkLayers(dec, needles, shortest, base64Layers, false, found)
}

// b64Value is c's value in standard or URL-safe base64, or -1.
func b64Value(c byte) int {
	switch {
	case 'A' <= c && c <= 'Z':
		return int(c - 'A')
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 26
	case '0' <= c && c <= '9':
		return int(c-'0') + 52
	case c == '+' || c == '-':
		return 62
	case c == '/' || c == '_':
		return 63
	}
	return -1
}
