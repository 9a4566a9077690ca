package dialect

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wraithdev/wraith/twin/object"
)

// Base is the plainest dialect, for embedding: parameters read as
// bracketed forms, JSON or a query (package canon), nothing reserved or
// special in a write, lists as bare arrays paged by a Link header, string
// ids, Bearer and Basic credentials, and refusals in plain sentences.
type Base struct{}

var _ Dialect = Base{}

// Name is "base"; a dialect that embeds Base names itself.
func (Base) Name() string { return "base" }

// Defaults: creates answer 200, deletes 200, ids are strings.
func (Base) Defaults() Defaults {
	return Defaults{CreateStatus: http.StatusOK, DeleteStatus: http.StatusOK, IDKind: "string"}
}

// Reserved reserves nothing.
func (Base) Reserved(string) bool { return false }

// Cleared is nil: "" clears a field.
func (Base) Cleared(string) any { return nil }

// FromString reads no object from a string.
func (Base) FromString(string, *object.Object, string) (*object.Object, bool) { return nil, false }

// ListField knows no list envelope.
func (Base) ListField(*object.Object) (string, string, bool) { return "", "", false }

// ListParam is page and per_page, LinkPages' parameters.
func (Base) ListParam(p string) bool { return p == "page" || p == "per_page" }

// List pages with LinkPages' defaults.
func (Base) List(q ListQuery) (ListAnswer, *Refusal) {
	return LinkPages{PerPage: 30, MaxPerPage: 100}.List(q), nil
}

// NewID mints StringID or IntegerID by kind.
func (Base) NewID(src IDSource, kind, prefix string) any {
	return NewID(src, kind, prefix)
}

// Secret is DerivedSecret's.
func (Base) Secret(id string) string { return DerivedSecret(id) }

// Credential reads a Bearer credential or a Basic-auth user name.
func (Base) Credential(authorization string) (Credentials, bool) {
	return Credential(authorization, "bearer")
}

// Word words p in the sentences the engine has always used, which read
// plainly to any client.
func (Base) Word(p Problem) string {
	switch p.Kind {
	case NoSuchObject:
		return "No such " + p.Object + ": '" + p.Value + "'"
	case InvalidNumber:
		return "Invalid number: " + p.Detail
	case InvalidInteger:
		return "Invalid integer: " + p.Value
	case InvalidFloat:
		return "Invalid float: " + p.Value
	case ExpectedNumber:
		return fmt.Sprintf("Invalid value for %s: expected a number.", p.Param)
	case InvalidBoolean:
		return "Invalid boolean: " + p.Value
	case ExpectedBoolean:
		return fmt.Sprintf("Invalid value for %s: expected a boolean.", p.Param)
	case ExpectedHash:
		return fmt.Sprintf("Invalid object for %s: expected a hash of fields.", p.Param)
	case Immutable:
		return fmt.Sprintf("You cannot change `%s`.", p.Param)
	case KeyInPath:
		return fmt.Sprintf("You cannot change `%s`: it is part of the item's path.", p.Param)
	case MissingParam:
		return "Missing required param: " + p.Param + "."
	case AlreadyExists:
		return "A " + p.Object + " with this " + p.Param + " already exists."
	case KeyTooLong:
		return fmt.Sprintf("Invalid Idempotency-Key: the key must be at most %d characters long, and this one has %d.", p.Limit, p.Have)
	case ExpectedNames:
		return "Invalid request: want a JSON array of names"
	case UnknownParam:
		if len(p.Names) > 1 {
			return "Received unknown parameters: " + strings.Join(p.Names, ", ")
		}
		return "Received unknown parameter: " + p.Param
	case InvalidEnum:
		return fmt.Sprintf("Invalid %s: must be one of %s", p.Param, OneOf(p.Allowed))
	case TooLong:
		return fmt.Sprintf("Invalid %s: must be at most %d characters, and this one has %d.", p.Param, p.Limit, p.Have)
	case InvalidString:
		return fmt.Sprintf("Invalid value for %s: expected a string, not %s.", p.Param, p.Shown())
	case ExpectedArray:
		return fmt.Sprintf("Invalid value for %s: expected an array.", p.Param)
	case EmptyValue:
		return fmt.Sprintf("Invalid value for %s: it cannot be unset, so it cannot be empty.", p.Param)
	}
	return "Invalid request: " + p.Detail
}

// Shown is the value a word shows: the text sent, or Inspect of what
// was sent when it was no text.
func (p Problem) Shown() string {
	if s, ok := p.Sent.(string); ok {
		return s
	}
	if p.Sent == nil && p.Value != "" {
		return p.Value // a problem that names only the text
	}
	return Inspect(p.Sent)
}

// OneOf lists values as an English sentence does: "a", "a or b",
// "a, b, or c".
func OneOf(values []string) string {
	switch len(values) {
	case 0:
		return ""
	case 1:
		return values[0]
	case 2:
		return values[0] + " or " + values[1]
	}
	return strings.Join(values[:len(values)-1], ", ") + ", or " + values[len(values)-1]
}

// inspectLimit bounds what Inspect writes, so that a refusal of a
// large hash stays a sentence.
const inspectLimit = 200

// Inspect writes a parameter value as Stripe's and GitHub's refusals
// show one, in Ruby's notation: "text" quoted, numbers and booleans as
// they are, nil, {"key"=>value, ...} in sorted key order and
// [value, ...]. Past inspectLimit bytes it ends in "...".
func Inspect(v any) string {
	b := appendInspect(nil, v)
	if len(b) > inspectLimit {
		cut := inspectLimit
		for cut > 0 && !utf8.RuneStart(b[cut]) { // never half a character
			cut--
		}
		b = append(b[:cut], "..."...)
	}
	return string(b)
}

func appendInspect(b []byte, v any) []byte {
	if len(b) > inspectLimit {
		return b
	}
	switch t := v.(type) {
	case nil:
		return append(b, "nil"...)
	case string:
		return strconv.AppendQuote(b, t)
	case bool:
		return strconv.AppendBool(b, t)
	case json.Number:
		return append(b, t...)
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendQuote(b, k)
			b = append(b, "=>"...)
			b = appendInspect(b, t[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendInspect(b, e)
		}
		return append(b, ']')
	}
	return fmt.Appendf(b, "%v", v)
}

// Errors names none: Wraith's own shapes answer.
func (Base) Errors() map[string]Shape { return nil }

// idLen is the length of a string id after its prefix.
const idLen = 14

// NewID mints an id of kind from src: StringID for "string", IntegerID
// for "integer", IntegerID's digits as a string for "digits" (Jira keys
// a project by "10000"), nil for "none".
func NewID(src IDSource, kind, prefix string) any {
	switch kind {
	case "string":
		return StringID(src, prefix)
	case "integer":
		return IntegerID(src)
	case "digits":
		return string(IntegerID(src))
	}
	return nil
}

// StringID is prefix and 14 characters from the session's generator.
func StringID(src IDSource, prefix string) string {
	return src.NewID(prefix, idLen)
}

// IntegerID is a new integer id: increasing per session, so never reused,
// with low digits from the session's generator, so that it depends on the
// seed as string ids do.
func IntegerID(src IDSource) json.Number {
	n := src.Next("\x00id")
	h := fnv.New32a()
	h.Write([]byte(src.NewID("", 4)))
	return json.Number(strconv.FormatInt(100000000+n*1000+int64(h.Sum32()%1000), 10))
}

// DerivedSecret is "<id>_secret_<24 characters>", derived from the id so
// it is as deterministic and as session-local as the id itself.
func DerivedSecret(id string) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	sum := sha256.Sum256([]byte("wraith client secret\x00" + id))
	b := make([]byte, 0, len(id)+8+24)
	b = append(b, id...)
	b = append(b, "_secret_"...)
	for _, c := range sum[:24] {
		b = append(b, alphabet[int(c)%len(alphabet)])
	}
	return string(b)
}

// Credential reads an Authorization header whose scheme is Basic or one
// of schemes (lower-case). Basic auth is read as nginx reads it into
// $remote_user, so that a fleet hashes the session a replica serves
// (deploy/nginx): padding optional, and no user name without the colon
// RFC 7617 requires.
func Credential(authorization string, schemes ...string) (Credentials, bool) {
	scheme, cred, ok := strings.Cut(authorization, " ")
	if !ok {
		return Credentials{}, false
	}
	scheme = strings.ToLower(scheme)
	if scheme == "basic" {
		raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(strings.TrimSpace(cred), "="))
		if err != nil {
			return Credentials{}, false
		}
		user, pass, ok := strings.Cut(string(raw), ":")
		return Credentials{Basic: true, User: user, Password: pass}, ok
	}
	for _, s := range schemes {
		if scheme == s {
			return Credentials{Token: cred}, true
		}
	}
	return Credentials{}, false
}
