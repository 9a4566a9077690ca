// Package dialect declares how a provider speaks where providers differ:
// how a request's parameters are read and stored, how a list is enveloped
// and paged, how ids are minted, which credentials name a session, and the
// words of its refusals. The engine serves every twin the same way and
// asks its twin's Dialect at each of those points; a provider's knowledge
// lives in that provider's package (twin/dialect/stripe, twin/dialect/github,
// twin/dialect/rest), never in the engine (SPEC §13).
//
// A twin names its dialect in twin.toml (dialect = "stripe"); package
// twin/dialect/dialects finds a Dialect by that name.
package dialect

import (
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/world"
)

// Dialect is one provider's way of speaking. Base implements every method
// with the plainest behaviour; a dialect embeds it and overrides what its
// provider does otherwise.
type Dialect interface {
	// Name is the name twin.toml gives it.
	Name() string

	// Defaults are what a resource that declares none of it is.
	Defaults() Defaults

	// Reserved reports whether a write parameter shapes the answer rather
	// than the object (Stripe's expand): accepted, never stored.
	Reserved(param string) bool
	// Cleared is the value a write that sends field as "" leaves: nil, or
	// the provider's empty value for it.
	Cleared(field string) any
	// FromString is the object a write that sends a string where field
	// holds the object cur leaves, if the provider reads one so.
	FromString(field string, cur *object.Object, s string) (*object.Object, bool)
	// ListField is where a list parameter goes in field's object cur
	// when cur is a list envelope: its data member's name, and the name
	// of the member that counts it ("" when none).
	ListField(cur *object.Object) (data, count string, ok bool)

	// ListParam reports whether a list request's parameter pages or
	// shapes the list, rather than filtering it by a field.
	ListParam(param string) bool
	// List answers a page of a list, or refuses it.
	List(q ListQuery) (ListAnswer, *Refusal)

	// NewID mints a new entity's id of kind "string", "digits" or
	// "integer": a string, or a json.Number; nil for kind "none".
	NewID(src IDSource, kind, prefix string) any
	// Secret is the client secret of the entity with id ($secret).
	Secret(id string) string
	// Credential reads an Authorization header in one of the provider's
	// schemes.
	Credential(authorization string) (Credentials, bool)

	// Word is the sentence the provider refuses a request with.
	Word(p Problem) string
	// Errors are the provider's error answers for the kinds a twin's
	// [errors] leaves out, by their twin.toml names (not_found,
	// invalid_request, validation, idempotency, rate_limited,
	// unexpected_state); a kind neither names is answered in Wraith's
	// own shape.
	Errors() map[string]Shape
}

// Shape is an error answer as a twin.toml [errors] entry declares one: a
// status and a JSON body with {placeholders}, and its media type ("" is
// application/json).
type Shape struct {
	Status      int
	ContentType string
	Body        string
}

// Credentials are what an Authorization header carries: a token (Bearer,
// or a scheme of the provider's own), or Basic auth's user and password.
type Credentials struct {
	Token          string
	Basic          bool
	User, Password string
}

// Decoder is what a dialect implements when it reads a request's
// parameters otherwise than package canon does, canon's syntax (bracketed
// forms, JSON, the query, as the Content-Type says) being every other
// dialect's. The engine asserts it once; without it, it calls canon's
// decoders itself, which lets the write path's fast-path buffer stay on
// the stack (one passed through an interface moves to the heap).
type Decoder interface {
	// Params reads the parameters into a tree: names to strings,
	// nested maps and lists, as the provider's clients send them.
	Params(contentType string, body []byte, query string) (map[string]any, error)
	// FlatParams is Params' fast path: the parameters of a request that
	// are all name or name[key] strings, appended to dst, sorted; ok is
	// false when they are not all so, and Params must read them.
	FlatParams(dst []canon.FlatParam, contentType string, body []byte, query string) (flat []canon.FlatParam, ok bool)
	// Repeated is canon.Repeated under the names Params reads them as:
	// the plain names sent more than once, with their values in order.
	// The engine asks it only of a route whose request schema has a
	// list sent so (reqschema.Schema.Repeated).
	Repeated(contentType string, body []byte, query string) map[string][]any
}

// Defaults are a dialect's answers for a resource that declares none.
type Defaults struct {
	CreateStatus int    // a create's status
	DeleteStatus int    // a delete's status
	IDKind       string // "string", "digits", "integer" or "none"
	// Typed says every object names its own type in "object", so a
	// restored entity that names another is refused.
	Typed bool
}

// IDSource is a session's deterministic id generator (session.State).
type IDSource interface {
	// NewID is prefix and n characters from the session's generator.
	NewID(prefix string, n int) string
	// Next is the next value of the session's counter name, from 1.
	Next(name string) int64
}

// ListQuery is a list request as a dialect pages it.
type ListQuery struct {
	Params map[string]any  // the request's parameters
	Items  []*world.Entity // what the list answers from, in order
	Object string          // the listed resource's name, for refusals
	// Array says the twin declared the list a bare array (list = "array")
	// rather than the dialect's own list shape.
	Array bool
	// Envelope is the object a list = "envelope" resource answers its
	// page in; nil for another list.
	Envelope *Envelope
	// URL is the list's own path, for an envelope that names it.
	URL string
	// Here is where the list was asked for, for links to its pages.
	Here Here
	// Search says the request is a search of the collection (a route of
	// the resource's search_paths): the dialect reads its query from
	// Params and answers the matches in its search shape.
	Search bool
}

// Envelope is a list's page put in one member of an object (list_key
// and list_body in twin.toml).
type Envelope struct {
	Key  string
	Body map[string]json.RawMessage // the other members, as JSON
}

// Wrap is the envelope's JSON with page (a JSON array) as its Key
// member, members in sorted order.
func (e *Envelope) Wrap(page []byte) []byte {
	m := make(map[string]json.RawMessage, len(e.Body)+1)
	for k, v := range e.Body {
		m[k] = v
	}
	m[e.Key] = page
	b, err := json.Marshal(m)
	if err != nil {
		return page // unreachable: every member is JSON
	}
	return b
}

// NewEnvelope reads list_key and list_body; nil when body is no object.
func NewEnvelope(key, body string) *Envelope {
	var m map[string]json.RawMessage
	if key == "" || json.Unmarshal([]byte(body), &m) != nil || m == nil {
		return nil
	}
	return &Envelope{Key: key, Body: m}
}

// Here is where a request was sent: the parts of its absolute URL, kept
// apart so that a list that needs no link builds none.
type Here struct {
	TLS    bool
	Host   string // the Host the request was sent to
	Prefix string // "/__s/{session}" when the path named the session, so links lead back to it
	Path   string // the provider path
	Query  string // the raw query
}

// Origin is where the client reached the provider's API: the scheme,
// the host and the /__s/{session} prefix, so that a client that follows
// a link stays in its session.
func (h Here) Origin() string {
	scheme := "http://"
	if h.TLS {
		scheme = "https://"
	}
	return scheme + h.Host + h.Prefix
}

// pages returns the absolute URL of the request with param set to n, the
// query read once for every link.
func (h Here) pages(param string) func(n int) string {
	q, _ := url.ParseQuery(h.Query)
	base := h.Origin() + h.Path + "?"
	return func(n int) string {
		q.Set(param, strconv.Itoa(n))
		return base + q.Encode()
	}
}

// ListAnswer is a page of a list.
type ListAnswer struct {
	Body []byte
	Link string // a Link header, "" for none
}

// Refusal is a request the provider refuses: the parameter at fault and
// the provider's sentence.
type Refusal struct {
	Param   string
	Message string
}

// Problem is what is wrong with a request, for a dialect to word.
type Problem struct {
	Kind   Kind
	Param  string // the parameter at fault
	Value  string // the value sent, where the words show it
	Object string // the resource's name
	Detail string // Wraith's own explanation (InvalidRequest, InvalidNumber)
	Limit  int    // the bound exceeded (KeyTooLong, TooLong)
	Have   int    // what was sent against it
	// Sent is the value as it was sent, when it is not text a word can
	// show as it is (a hash where a string is wanted, a JSON number
	// where a string is): its own shape, for the dialect to write in
	// its provider's notation (Inspect). Value is then the text of a
	// string or number sent, else "".
	Sent any
	// Allowed are the values the parameter may take (InvalidEnum).
	Allowed []string
	// Nullable says the parameter also takes null, for words that list
	// what it takes.
	Nullable bool
	// Names are every unknown parameter of the object Param is in, Param
	// the first, for providers that name them all (UnknownParam).
	Names []string
}

// Kind is a kind of Problem.
type Kind int

// The kinds of Problem the engine finds.
const (
	InvalidRequest  Kind = iota // the request cannot be read: Detail says why
	NoSuchObject                // Param names an Object whose id, Value, the session lacks
	InvalidNumber               // a number past what the field can hold: Detail
	InvalidInteger              // Value is no integer
	InvalidFloat                // Value is no number (for a decimal string, no decimal)
	ExpectedNumber              // Param wants a number and got another shape
	InvalidBoolean              // Value is no boolean
	ExpectedBoolean             // Param wants a boolean and got another shape
	ExpectedHash                // Param wants an object and got another shape
	Immutable                   // Param cannot be changed
	KeyInPath                   // Param is part of the item's path
	MissingParam                // Param is required
	AlreadyExists               // an Object with this Param exists
	KeyTooLong                  // the Idempotency-Key has Have characters, past Limit
	ExpectedNames               // Param wants a JSON array of names

	// Request validation (package twin/reqschema). A value of another
	// shape than the schema's is InvalidInteger, InvalidFloat,
	// InvalidBoolean, InvalidString, ExpectedHash or ExpectedArray, by
	// the type wanted, with Sent.
	UnknownParam  // Param is no parameter the operation takes
	InvalidEnum   // Value is none of Allowed
	TooLong       // Value has Have characters, past Limit
	InvalidString // Param wants a string: Sent is another shape
	ExpectedArray // Param wants an array and got another shape: Sent
	EmptyValue    // Param was sent "" and cannot be unset
)
