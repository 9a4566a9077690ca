package scrub

import (
	"encoding/binary"
	"encoding/hex"
	"regexp"
	"strings"
)

// Secret tokens: a credential kept in a response body keeps its shape, so a
// Stripe client_secret "pi_3Nx…_secret_Ab…" becomes
// "pi_tok3f9a1c0b7d2e_secret_tok01b2c3d4e5f6".
const (
	secretTokPrefix = "tok"
	secretTokLen    = len(secretTokPrefix) + tokHex
	// structuralMax is the longest all-lowercase segment kept as part of a
	// secret's shape ("pi", "secret", "sk", "live", "whsec").
	structuralMax = 8
)

// SecretToken returns the shape-keeping token of a credential value. The
// value is cut into segments, runs of letters, digits and non-ASCII bytes;
// the bytes between them are kept. A segment of at most 8 lowercase ASCII
// letters is structure and is kept; every other segment becomes "tok" and
// 12 hex digits of its HMAC. A value with no other segment ("hunter_two")
// becomes one "tok…" as a whole, so no word of it survives. A value that is
// already a secret token is returned unchanged; "" stays "".
func (s *Scrubber) SecretToken(value string) string {
	if value == "" || isSecretToken(value) {
		return value
	}
	random := false
	eachSegment(value, func(seg string, _ int) {
		random = random || !structural(seg) && !isTokSegment(seg)
	})
	if !random {
		return secretTokPrefix + s.hexSum(value)
	}
	var b strings.Builder
	last := 0
	eachSegment(value, func(seg string, at int) {
		b.WriteString(value[last:at])
		last = at + len(seg)
		if structural(seg) || isTokSegment(seg) {
			b.WriteString(seg)
			return
		}
		b.WriteString(secretTokPrefix)
		b.WriteString(s.hexSum(seg))
	})
	b.WriteString(value[last:])
	return b.String()
}

// isSecretToken reports whether v is a SecretToken result: at least one
// token segment and nothing but structure besides.
func isSecretToken(v string) bool {
	tok, other := false, false
	eachSegment(v, func(seg string, _ int) {
		switch {
		case isTokSegment(seg):
			tok = true
		case !structural(seg):
			other = true
		}
	})
	return tok && !other
}

func eachSegment(v string, f func(seg string, at int)) {
	start := -1
	for i := 0; i <= len(v); i++ {
		if i < len(v) && (isAlnum(v[i]) || v[i] >= 0x80) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(v[start:i], start)
			start = -1
		}
	}
}

func structural(seg string) bool {
	if len(seg) == 0 || len(seg) > structuralMax {
		return false
	}
	for i := 0; i < len(seg); i++ {
		if !isLowerByte(seg[i]) {
			return false
		}
	}
	return true
}

func isTokSegment(seg string) bool {
	return len(seg) == secretTokLen && strings.HasPrefix(seg, secretTokPrefix) && lowerHex(seg[len(secretTokPrefix):])
}

func (s *Scrubber) hexSum(v string) string {
	sum := s.sum(v)
	return hex.EncodeToString(sum[:tokHex/2])
}

// sum is the HMAC of v under the scrub key.
func (s *Scrubber) sum(v string) [32]byte {
	m := s.macs.Get().(*mac)
	defer s.macs.Put(m)
	m.h.Reset()
	m.in = append(m.in[:0], v...)
	m.h.Write(m.in)
	var out [32]byte
	copy(out[:], m.h.Sum(m.sum[:0]))
	if cap(m.in) > 4<<10 {
		m.in = nil
	}
	return out
}

// Card numbers: 13 to 19 digits, Luhn-valid, alone or in groups split by
// single spaces or dashes, not touching a letter, digit or "_".
const (
	cardMin = 13
	cardMax = 19
	// cardTokPrefix starts every card token: no card issuer uses a number
	// starting with 0000, so a token never reads as a real card.
	cardTokPrefix = "0000"
)

// cards returns v with every card number replaced by its token, calling
// note for each replacement. A string with fewer than 13 digits is
// returned at once.
func (s *Scrubber) cards(v string, note func(orig, repl string)) string {
	return replaceCards(v, s.cardToken, note)
}

// replaceCards is cards with the replacement of a card made by token.
func replaceCards(v string, token func(card string) string, note func(orig, repl string)) string {
	digits := 0
	for i := 0; i < len(v) && digits < cardMin; i++ {
		if isDigit(v[i]) {
			digits++
		}
	}
	if digits < cardMin {
		return v
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(v); {
		if !isDigit(v[i]) || i > 0 && isWord(v[i-1]) {
			i++
			continue
		}
		// groups of digits [start,end) joined by one ' ' or '-'
		var groups [][2]int
		j := i
		for {
			k := j
			for k < len(v) && isDigit(v[k]) {
				k++
			}
			groups = append(groups, [2]int{j, k})
			if k+1 < len(v) && (v[k] == ' ' || v[k] == '-') && isDigit(v[k+1]) {
				j = k + 1
				continue
			}
			j = k
			break
		}
		if j < len(v) && isWord(v[j]) {
			i = j
			continue
		}
		for a := 0; a < len(groups); {
			best, total := -1, 0
			for z := a; z < len(groups); z++ {
				total += groups[z][1] - groups[z][0]
				if total > cardMax {
					break
				}
				if total >= cardMin && luhn(v[groups[a][0]:groups[z][1]]) {
					best = z
				}
			}
			if best < 0 {
				a++
				continue
			}
			from, to := groups[a][0], groups[best][1]
			orig := v[from:to]
			if !isCardToken(orig) {
				tok := token(orig)
				b.WriteString(v[last:from])
				b.WriteString(tok)
				last = to
				if note != nil {
					note(orig, tok)
				}
			}
			a = best + 1
		}
		i = j
	}
	if last == 0 {
		return v
	}
	b.WriteString(v[last:])
	return b.String()
}

// cardToken keeps the card's length and separators: "0000", digits from
// the HMAC of its digits, and a Luhn check digit.
func (s *Scrubber) cardToken(card string) string {
	var digits []byte
	for i := 0; i < len(card); i++ {
		if isDigit(card[i]) {
			digits = append(digits, card[i])
		}
	}
	sum := s.sum(string(digits))
	out := []byte(cardTokPrefix)
	for k := 0; len(out) < len(digits)-1; k++ {
		v := binary.BigEndian.Uint16(sum[2*(k%16):])
		out = append(out, byte('0'+v%10))
	}
	out = append(out, luhnCheck(out))
	var b strings.Builder
	n := 0
	for i := 0; i < len(card); i++ {
		if isDigit(card[i]) {
			b.WriteByte(out[n])
			n++
		} else {
			b.WriteByte(card[i])
		}
	}
	return b.String()
}

func isCardToken(card string) bool {
	var digits []byte
	for i := 0; i < len(card); i++ {
		if isDigit(card[i]) {
			digits = append(digits, card[i])
		}
	}
	return strings.HasPrefix(string(digits), cardTokPrefix) && luhn(card)
}

// luhn reports whether the digits of v pass the Luhn check.
func luhn(v string) bool {
	sum, double := 0, false
	for i := len(v) - 1; i >= 0; i-- {
		if !isDigit(v[i]) {
			continue
		}
		d := int(v[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// luhnCheck is the digit that makes payload followed by it Luhn-valid.
func luhnCheck(payload []byte) byte {
	sum, double := 0, true
	for i := len(payload) - 1; i >= 0; i-- {
		d := int(payload[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return byte('0' + (10-sum%10)%10)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isWord(c byte) bool  { return isAlnum(c) || c == '_' }

// A KnownCredential is a credential recognised by its shape alone.
type KnownCredential struct {
	Name string
	re   *regexp.Regexp
	// group is the submatch that is the secret, 0 for the whole match:
	// "AccountKey=" names the key in a connection string and is kept.
	group int
}

// knownCredentials are vendor key formats and generic secret shapes, found
// in any string whatever its field name. pack refuses a twin holding one.
var knownCredentials = []KnownCredential{
	{"Stripe secret or restricted key", regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}`), 0},
	{"Stripe webhook secret", regexp.MustCompile(`\bwhsec_[0-9A-Za-z]{16,}`), 0},
	{"GitHub token", regexp.MustCompile(`\bgh[pousr]_[0-9A-Za-z]{20,}`), 0},
	{"GitHub fine-grained token", regexp.MustCompile(`\bgithub_pat_[0-9A-Za-z_]{20,}`), 0},
	{"AWS access key id", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), 0},
	{"Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{30,}`), 0},
	{"Slack token", regexp.MustCompile(`\bxox[abposr]-[0-9A-Za-z-]{10,}`), 0},
	{"bearer token", regexp.MustCompile(`\b[Bb]earer\s+[0-9A-Za-z._~+/-]{16,}=*`), 0},
	{"private key", regexp.MustCompile(`-----BEGIN[A-Z ]* PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z ]* PRIVATE KEY-----|$)`), 0},
	{"JWT", regexp.MustCompile(`\beyJ[0-9A-Za-z_-]{10,}\.[0-9A-Za-z_-]{10,}\.[0-9A-Za-z_-]*`), 0},
	// Azure connection strings: storage's AccountKey, Service Bus and
	// Event Hubs' SharedAccessKey, and a SAS in SharedAccessSignature.
	{"Azure connection string key", regexp.MustCompile(`(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=([^;"'\s]{8,})`), 1},
	// An Azure storage account key is 64 random bytes in base64: 86
	// characters and "==". Other 64-byte base64 values (a SHA-512 in
	// base64) are replaced too; that is the safe failure.
	{"Azure storage account key", regexp.MustCompile(`(?:^|[^0-9A-Za-z+/=])([0-9A-Za-z+/]{86}==)(?:[^0-9A-Za-z+/=]|$)`), 1},
}

// knownAnchors are literal parts of the known shapes: a string holding none
// of them is not searched with the expressions.
var knownAnchors = []string{"sk_", "rk_", "whsec_", "gh", "AKIA", "ASIA", "AIza", "xox", "earer", "PRIVATE KEY", "eyJ", "ccount", "CCOUNT", "hared", "HARED", "=="}

var knownAnchorBytes = byteStrings(knownAnchors...)

// PrivateKeyMarker replaces a private key block.
const PrivateKeyMarker = "[wraith: private key removed]"

func mayHoldKnown(v string) bool {
	for _, a := range knownAnchors {
		if strings.Contains(v, a) {
			return true
		}
	}
	return false
}

// FindKnownCredential returns the name of the first known credential shape
// in v that the scrubber has not already replaced, or "".
func FindKnownCredential(v string) string {
	if !mayHoldKnown(v) {
		return ""
	}
	for _, k := range knownCredentials {
		for _, m := range k.re.FindAllStringSubmatch(v, -1) {
			if !scrubbedShape(m[k.group]) {
				return k.Name
			}
		}
	}
	return ""
}

// scrubbedShape reports whether a match is a secret token (or a bearer of
// one): the scrubber's own output matching a vendor's prefix.
func scrubbedShape(m string) bool {
	tok, other := false, false
	eachSegment(m, func(seg string, _ int) {
		switch {
		case isTokSegment(seg):
			tok = true
		case structural(seg) || strings.EqualFold(seg, "bearer"):
		default:
			other = true
		}
	})
	return tok && !other
}

// known returns v with every known credential shape replaced: a private key
// block by PrivateKeyMarker, anything else by its SecretToken.
func (s *Scrubber) known(v string, note func(orig, repl string)) string {
	return replaceKnown(v, func(k *KnownCredential, m string) string {
		if k.Name == "private key" {
			return PrivateKeyMarker
		}
		return s.SecretToken(m)
	}, note)
}

// replaceKnown is known with the replacement of a match made by repl.
func replaceKnown(v string, repl func(k *KnownCredential, m string) string, note func(orig, repl string)) string {
	if !mayHoldKnown(v) {
		return v
	}
	for i := range knownCredentials {
		k := &knownCredentials[i]
		idx := k.re.FindAllStringSubmatchIndex(v, -1)
		if idx == nil {
			continue
		}
		var b strings.Builder
		last := 0
		for _, m := range idx {
			from, to := m[2*k.group], m[2*k.group+1]
			if from < 0 || scrubbedShape(v[from:to]) {
				continue
			}
			r := repl(k, v[from:to])
			if note != nil {
				note(v[from:to], r)
			}
			b.WriteString(v[last:from])
			b.WriteString(r)
			last = to
		}
		if last > 0 {
			b.WriteString(v[last:])
			v = b.String()
		}
	}
	return v
}

// Value returns v with card numbers and known credential shapes replaced,
// whatever field it came from.
func (s *Scrubber) Value(v string) string {
	return s.known(s.cards(v, nil), nil)
}
