// Package scrubtest holds what the tests of the scrubber and the recorder
// share: the forms in which a provider can send a live key back. One list,
// so that the unit tests of the search and the end-to-end test of the
// recorder hold the same encodings. Standard library only, so package
// scrub's own tests can import it.
package scrubtest

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf16"
)

// LiveEncodings returns the forms of key a provider can write back, by
// names fit for a path segment: percent-encodings in either case, the
// backslash escapes of JSON, PHP, JavaScript and Markdown, HTML entities,
// UTF-16, base64 and hex, and mixes of them within one key.
func LiveEncodings(key string) map[string]string {
	pct := func(c byte) string { return fmt.Sprintf("%%%02X", c) }
	named := map[byte]string{'/': "&sol;", '+': "&plus;", '=': "&equals;", '_': "&lowbar;"}
	entityOr := func(c byte, f string) string {
		if n, ok := named[c]; ok {
			return n
		}
		return fmt.Sprintf(f, c)
	}
	b64 := func(enc *base64.Encoding, v string) string { return enc.EncodeToString([]byte(v)) }
	return map[string]string{
		"raw":            key,
		"upper":          strings.ToUpper(key),
		"json-u":         perByte(key, func(c byte) string { return fmt.Sprintf(`\u%04x`, c) }),
		"json-u-upper":   perByte(key, func(c byte) string { return fmt.Sprintf(`\u%04X`, c) }),
		"json-u-first":   `\u0073` + key[1:],
		"json-in-json":   perByte(key, func(c byte) string { return fmt.Sprintf(`\\u%04x`, c) }),
		"php-slash":      strings.ReplaceAll(key, "/", `\/`),
		"pct":            url.QueryEscape(key),
		"pct-lower":      strings.NewReplacer("%2F", "%2f", "%2B", "%2b", "%3D", "%3d").Replace(url.QueryEscape(key)),
		"pct-path":       url.PathEscape(key),
		"pct-all":        perByte(key, pct),
		"pct-all-lower":  strings.ToLower(perByte(key, pct)),
		"pct-double":     strings.ReplaceAll(url.QueryEscape(key), "%", "%25"),
		"b64-std":        b64(base64.StdEncoding, key),
		"b64-url":        b64(base64.URLEncoding, key),
		"b64-raw":        b64(base64.RawStdEncoding, key),
		"b64-raw-url":    b64(base64.RawURLEncoding, key),
		"b64-escaped":    url.QueryEscape(b64(base64.StdEncoding, key)),
		"b64-basic":      b64(base64.StdEncoding, key+":"),
		"b64-bearer":     b64(base64.StdEncoding, "Authorization: Bearer "+key),
		"hex":            hex.EncodeToString([]byte(key)),
		"hex-upper":      strings.ToUpper(hex.EncodeToString([]byte(key))),
		"html-dec":       perByte(key, func(c byte) string { return fmt.Sprintf("&#%d;", c) }),
		"html-dec-zeros": perByte(key, func(c byte) string { return fmt.Sprintf("&#00%d", c) }),
		"html-hex":       perByte(key, func(c byte) string { return fmt.Sprintf("&#x%x;", c) }),
		"html-hex-upper": perByte(key, func(c byte) string { return fmt.Sprintf("&#X%X;", c) }),
		"html-named":     perByte(key, func(c byte) string { return entityOr(c, "%c") }),
		"html-mixed": perByte(key, func(c byte) string {
			switch c % 3 {
			case 0:
				return fmt.Sprintf("&#%d;", c)
			case 1:
				return entityOr(c, "&#x%x;")
			}
			return string(c)
		}),
		"mixed-all": perByte(key, func(c byte) string {
			switch c % 5 {
			case 0:
				return fmt.Sprintf("&#%d;", c)
			case 1:
				return fmt.Sprintf("%%%02x", c)
			case 2:
				return fmt.Sprintf(`\u%04X`, c)
			case 3:
				return entityOr(c, "&#x%x;")
			}
			return string(c)
		}),
		"x-escape":   perByte(key, func(c byte) string { return fmt.Sprintf(`\x%02x`, c) }),
		"u-brace":    perByte(key, func(c byte) string { return fmt.Sprintf(`\u{%x}`, c) }),
		"markdown":   strings.ReplaceAll(key, "_", `\_`),
		"utf16le":    UTF16(key, false),
		"utf16be":    UTF16(key, true),
		"utf16-bom":  "\xff\xfe" + UTF16(key, false),
		"utf16-json": perByte(UTF16(key, false), func(c byte) string { return fmt.Sprintf(`\u%04x`, c) }),
		// Deeper than the first round's four layers, and forms it missed.
		"pct-5":         nest(perByte(key, pct), 4, func(v string) string { return strings.ReplaceAll(v, "%", "%25") }),
		"json-u-nest-4": nest(perByte(key, func(c byte) string { return fmt.Sprintf(`\u%04x`, c) }), 4, func(v string) string { return strings.ReplaceAll(v, `\`, `\\`) }),
		"amp-chain-5":   nest(perByte(key, func(c byte) string { return fmt.Sprintf("&#%d;", c) }), 5, func(v string) string { return strings.ReplaceAll(v, "&", "&amp;") }),
		"iis-u":         perByte(key, func(c byte) string { return fmt.Sprintf("%%u%04X", c) }),
		"html-dec-long": perByte(key, func(c byte) string { return fmt.Sprintf("&#%012d;", c) }),
		"html-hex-long": perByte(key, func(c byte) string { return fmt.Sprintf("&#x%014x;", c) }),
		"u-brace-zeros": perByte(key, func(c byte) string { return fmt.Sprintf(`\u{%07x}`, c) }),
		"b64-mime":      wrap(b64(base64.StdEncoding, "key="+key+" and more text, so that it wraps"), 12, "\r\n"),
		"b64-mime-json": wrap(b64(base64.StdEncoding, "k:"+key+" and more text, so that it wraps"), 10, `\r\n`),
		"b64-pem":       wrap(b64(base64.StdEncoding, "xy"+key+" and more text, so that it wraps"), 16, "\n"),
		"b64-of-pct":    b64(base64.StdEncoding, perByte(key, pct)),
		"b64-of-json-u": b64(base64.StdEncoding, perByte(key, func(c byte) string { return fmt.Sprintf(`\u%04x`, c) })),
		"b64-php-slash": strings.ReplaceAll(b64(base64.StdEncoding, "??>"+key+"?>>"), "/", `\/`),
		"b64-suffix":    b64(base64.StdEncoding, key[3:]),
		"b64-glued":     "x" + b64(base64.StdEncoding, "ab"+key),
		"utf7":          "+" + strings.TrimRight(b64(base64.StdEncoding, UTF16(key, true)), "=") + "-",
		"base32":        base32.StdEncoding.EncodeToString([]byte(key)),
		"hex-colon":     strings.TrimSuffix(perByte(key, func(c byte) string { return fmt.Sprintf("%02x:", c) }), ":"),
		"hex-0x":        perByte(key, func(c byte) string { return fmt.Sprintf("0x%02x, ", c) }),
		"octal":         perByte(key, func(c byte) string { return fmt.Sprintf(`\%o`, c) }),
		"css":           perByte(key, func(c byte) string { return fmt.Sprintf(`\%x `, c) }),
		"reversed":      reverse(key),
		"soft-hyphen":   key[:8] + "&shy;" + key[8:12] + "\u00ad" + key[12:],
		"zero-width":    key[:5] + "\u200b" + key[5:9] + "&#8203;" + key[9:],
		"js-continued":  key[:8] + "\\\n" + key[8:],
		"qp-soft-break": key[:10] + "=\r\n" + key[10:],
	}
}

// nest applies f to v n times.
func nest(v string, n int, f func(string) string) string {
	for range n {
		v = f(v)
	}
	return v
}

// wrap breaks v into lines of width characters with sep, as MIME (76)
// and PEM (64) do; a short width puts a break inside the key's characters.
func wrap(v string, width int, sep string) string {
	var b strings.Builder
	for len(v) > width {
		b.WriteString(v[:width])
		b.WriteString(sep)
		v = v[width:]
	}
	b.WriteString(v)
	return b.String()
}

// perByte encodes every byte of v with f.
func perByte(v string, f func(c byte) string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		b.WriteString(f(v[i]))
	}
	return b.String()
}

// UTF16 is v in UTF-16, big- or little-endian, without a byte-order mark.
func UTF16(v string, bigEndian bool) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(v)) {
		hi, lo := byte(u>>8), byte(u)
		if bigEndian {
			b.WriteByte(hi)
			b.WriteByte(lo)
		} else {
			b.WriteByte(lo)
			b.WriteByte(hi)
		}
	}
	return b.String()
}

// reverse is v backwards.
func reverse(v string) string {
	b := []byte(v)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
