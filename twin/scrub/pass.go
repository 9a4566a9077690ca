package scrub

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// MinEcho is the shortest value searched for elsewhere in an exchange once
// it has been removed or tokenized somewhere. Shorter values ("1", "CA",
// a 4-digit ssn_last_4) are replaced only where their field name finds
// them: replacing every "CA" in an exchange would mangle it.
const MinEcho = 6

// A Pass scrubs the parts of one exchange and remembers every value it
// removed or replaced, so that Echoes can replace the same values wherever
// else the provider echoed them (an error message quoting the request, a
// request_body field, a header). It is not safe for concurrent use.
type Pass struct {
	s     *Scrubber
	track bool // remember replacements; off for one-off scrubs
	found map[string]string
	rep   *strings.Replacer
	// live are the live credentials registered with Secret, each with its
	// forms lowercased: Echo also replaces them under escapes (live.go).
	live []liveSecret
}

type liveSecret struct {
	needles [][]byte
	token   string
}

// NewPass starts scrubbing one exchange.
func (s *Scrubber) NewPass() *Pass {
	return &Pass{s: s, track: true}
}

// note remembers that orig was replaced by repl.
func (p *Pass) note(orig, repl string) {
	if p == nil || !p.track || len(orig) < MinEcho || orig == repl {
		return
	}
	if p.found == nil {
		p.found = map[string]string{}
	}
	if _, ok := p.found[orig]; !ok {
		p.found[orig] = repl
		p.rep = nil
		// A provider echoing a query string echoes it encoded.
		if e := url.QueryEscape(orig); e != orig {
			p.found[e] = url.QueryEscape(repl)
		}
	}
}

// noteSecret remembers a removed credential: its echoes become its
// SecretToken.
func (p *Pass) noteSecret(orig string) {
	if p == nil || !p.track || len(orig) < MinEcho {
		return
	}
	p.note(orig, p.s.SecretToken(orig))
}

// Secret registers a live credential, such as the key the recorder
// injects: it and its base64 forms (Basic auth with it as user or
// password) are replaced wherever they occur, whatever their length.
func (p *Pass) Secret(v string) {
	if v == "" {
		return
	}
	if p.found == nil {
		p.found = map[string]string{}
	}
	tok := p.s.SecretToken(v)
	p.found[v] = tok
	for _, form := range liveForms(v) {
		p.found[form] = tok
	}
	p.rep = nil
	p.live = append(p.live, liveSecret{needles: liveNeedles(v), token: tok})
}

// liveForms are the encodings in which a credential travels: base64 of
// it alone and as a Basic-auth user or password, standard and URL-safe;
// the base64 it leaves inside any longer base64 text (a provider echoing
// "Authorization: Bearer <key>" base64-encoded), at each of the three
// alignments it can have there; hex, bare and with separators; base32;
// octal and CSS escapes; and the key reversed.
func liveForms(v string) []string {
	var out []string
	for _, raw := range []string{v, v + ":", ":" + v} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			out = append(out, enc.EncodeToString([]byte(raw)))
		}
	}
	// Inside longer base64 text, v starts at some offset; whatever it is,
	// the encoding holds the whole 3-byte groups of v[i:] for one i in
	// 0..2, and those characters depend on v alone. Keys too short to
	// leave MinEcho such characters are found only whole.
	for i := 0; i < 3 && i < len(v); i++ {
		core := v[i : i+(len(v)-i)/3*3]
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if c := enc.EncodeToString([]byte(core)); len(c) >= 2*MinEcho {
				out = append(out, c)
			}
		}
	}
	out = append(out, hex.EncodeToString([]byte(v)), strings.ToUpper(hex.EncodeToString([]byte(v))))
	// Base32 of v at the start of the text: the characters of v's whole
	// 5-byte groups. (Not the extended hex alphabet: its needle starts
	// with a letter as common as "e", which every search would stop at.)
	if core := v[:len(v)/5*5]; len(core) >= 5 {
		if c := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(core)); len(c) >= 2*MinEcho {
			out = append(out, c)
		}
	}
	// Forms no layer decodes, each of the whole key in one style: hex
	// bytes with separators (a dump, a byte array), octal and CSS escapes
	// (whose digits read as each other's), and the key reversed.
	for _, f := range []struct{ each, sep string }{
		{"%02x", ":"}, {"%02x", "-"}, {"%02x", " "}, {"%02x", ","}, {"%02x", ", "},
		{"0x%02x", ","}, {"0x%02x", ", "}, {"0x%02x", " "},
		{`\%o`, ""}, {`\%03o`, ""}, {`\%x`, ""}, {`\%x`, " "},
	} {
		parts := make([]string, len(v))
		for i := 0; i < len(v); i++ {
			parts[i] = fmt.Sprintf(f.each, v[i])
		}
		out = append(out, strings.Join(parts, f.sep))
	}
	rev := []byte(v)
	slices.Reverse(rev)
	return append(out, string(rev))
}

// LiveForms returns v and the encodings of it that must never be written.
func LiveForms(v string) []string {
	if v == "" {
		return nil
	}
	return append([]string{v}, liveForms(v)...)
}

// Echo returns v with every value found so far replaced, longest first,
// and every live credential (Secret) replaced in any form ContainsLive
// finds, escapes and all.
func (p *Pass) Echo(v string) string {
	if p == nil || len(p.found) == 0 || v == "" {
		return v
	}
	return p.echoLive(p.replacer().Replace(v))
}

// echoLive replaces the live credentials in v, in any form findLive finds.
func (p *Pass) echoLive(v string) string {
	for _, l := range p.live {
		v = replaceLive(v, l.needles, l.token)
	}
	return v
}

func (p *Pass) replacer() *strings.Replacer {
	if p.rep == nil {
		olds := make([]string, 0, len(p.found))
		for o := range p.found {
			olds = append(olds, o)
		}
		// strings.Replacer tries its pairs in order at each position.
		sort.Slice(olds, func(i, j int) bool {
			if len(olds[i]) != len(olds[j]) {
				return len(olds[i]) > len(olds[j])
			}
			return olds[i] < olds[j]
		})
		args := make([]string, 0, 2*len(olds))
		for _, o := range olds {
			args = append(args, o, p.found[o])
		}
		p.rep = strings.NewReplacer(args...)
	}
	return p.rep
}

// value scrubs one string by its shape alone: card numbers and known
// credential formats, remembering what it replaced.
func (p *Pass) value(v string) string {
	return p.s.known(p.s.cards(p.nestedJSON(v), p.note), p.note)
}

// nestedJSON scrubs a string that is itself a JSON object or array — a
// provider echoing the request body as a string, a form field or query
// parameter carrying a JSON payload — by names, as any document: its
// credentials become SecretTokens and its personal fields tokens. It
// returns v unchanged (not even compacted) when nothing inside needed
// scrubbing. Each level of nesting doubles the escapes a string needs, so
// the recursion is shallow.
func (p *Pass) nestedJSON(v string) string {
	t := strings.TrimSpace(v)
	if len(t) < 2 || !(t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return v
	}
	out, err := p.json([]byte(t), false, false)
	if err != nil {
		return v
	}
	var compact bytes.Buffer
	if json.Compact(&compact, []byte(t)) != nil || bytes.Equal(compact.Bytes(), out) {
		return v
	}
	return string(out)
}

// Text scrubs a text body or any other free string by shape: card numbers
// and known credential formats. Text is not searched for personal data.
func (p *Pass) Text(v string) string { return p.value(v) }

// EchoText is Text followed by Echo.
func (p *Pass) EchoText(v string) string { return p.Echo(p.value(v)) }
