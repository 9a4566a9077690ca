// Package reqschema is what a provider accepts in a request, as a twin
// carries it: for each operation, one schema of its parameters (the query
// of a read, the body of a write), a small subset of JSON Schema that the
// importer writes from the provider's API description into the twin's
// requests.json. The engine checks every request against it before it
// serves one (SPEC §13), and stores values in the types it names.
//
// The subset is what request validation needs and nothing else: types,
// required and known names, enums, formats, lengths, items, and anyOf (an
// expandable field takes an id or a hash). Schemas are inlined: a file
// has no references, so checking never resolves one.
//
// # The rules
//
// Check reads parameters as package canon decodes them. In a form body
// or a query every value is text, read in the schema's type: an integer
// is decimal digits with an optional sign (1.5, 1e3 and 0x10 are no
// integers) and is stored as a json.Number; a number is a JSON number,
// stored as written (16.0000 stays 16.0000); a decimal string (format
// "decimal") is digits with an optional point and minus, kept a string;
// a boolean is true or false, in lower case. An object whose keys are
// all list indices is a list where the schema says array, in index
// order; a list canon made of keys 0..n-1 is an object keyed "0".."n-1"
// where the schema says object (metadata keyed by numbers); a plain
// value where the schema is a Repeated array is a list of that one. In a JSON
// body values are JSON's and are taken only as they are: "30" is no
// integer, and null is taken only where the schema is nullable.
//
// A form's "" is kept as "" where the schema is nullable or lists ""
// (an anyOf alternative enum [""]): it clears the field, which is the
// engine's to do. Elsewhere "" is an empty string where the schema
// says a plain string, and an EmptyValue problem where it wants
// another type, one of an enum, or an entity's id.
//
// A name an object's schema neither lists nor admits by Additional is
// UnknownParam, which names every such name of that object (Stripe's
// "Received unknown parameters: quantity, trial_end"); a required name absent is MissingParam; a value of
// another shape than the schema's type is the problem of that type
// (InvalidInteger, InvalidFloat, InvalidBoolean, InvalidString,
// ExpectedHash, ExpectedArray) with the value sent; a string outside
// its enum is InvalidEnum, and one longer than MaxLength characters
// TooLong. A string at a schema with Ref names an entity that the
// Lookup, when there is one, must know, else it is NoSuchObject. A
// value matches an anyOf when one alternative takes it, the first that
// does typing it; when none does, the problem reported is that of the
// first alternative of the value's own shape (a string's the string
// alternative's, a hash's the object's), because its words are about
// what the client meant to send. Formats other than decimal are not
// checked.
//
// Order: at each object, first the names it does not take, all of them
// at once; then its members' values in sorted name order, each to the
// bottom before the next; then its required names, the first missing
// in sorted order. The first problem is the answer, so the same request
// always gets the same one. Check and CheckFlat visit in the same order
// and answer the same problem.
package reqschema

// Format is the version of requests.json this package reads and writes.
const Format = 1

// File is a twin's requests.json.
type File struct {
	Format int `json:"format"`
	// Source says where the schemas came from ("Stripe API 2026-08-26.dahlia").
	Source     string      `json:"source,omitempty"`
	Operations []Operation `json:"operations"`
}

// Operation is one method and path template of the twin's routes, with
// the schema of its parameters.
type Operation struct {
	Method string `json:"method"`
	Path   string `json:"path"` // a route template: /v1/customers/{customer}
	// Params is an object schema of the operation's parameters: the
	// query's for GET and DELETE, the body's (and query's) otherwise.
	// Path parameters are not in it.
	Params *Schema `json:"params"`
}

// Schema is one value's schema. The zero Schema accepts anything.
type Schema struct {
	// Type is "object", "array", "string", "integer", "number" or
	// "boolean"; "" accepts any type.
	Type string `json:"type,omitempty"`
	// Format refines a string or number: "decimal" (a decimal number
	// written as a string, as Stripe's unit_amount_decimal), "unix-time",
	// "date-time", "date", "email", "uri"; others are not checked.
	Format string `json:"format,omitempty"`
	// Nullable accepts null (and, in a form, the empty string that
	// clears a field).
	Nullable bool `json:"nullable,omitempty"`

	// Properties are an object's known names. Required names must be
	// present. Additional, when set, is the schema of every other name
	// (metadata: strings); without it a name not in Properties is
	// unknown, and refused.
	Properties map[string]*Schema `json:"properties,omitempty"`
	Required   []string           `json:"required,omitempty"`
	Additional *Schema            `json:"additional,omitempty"`

	// Items is an array's element schema.
	Items *Schema `json:"items,omitempty"`
	// Repeated says a form or query sends this array as its name
	// repeated, one element each (OpenAPI's style form, exploded:
	// Permission=a&Permission=b), so that a name sent once is a list of
	// one. The dialect's decoder reads the repeated name as a list.
	Repeated bool `json:"repeated,omitempty"`

	// AnyOf are alternatives, of which the value must match one (a
	// string id or an object; an object or "" to clear it).
	AnyOf []*Schema `json:"any_of,omitempty"`

	// Enum lists the values a string (or integer, written as text) may
	// take.
	Enum []string `json:"enum,omitempty"`
	// MaxLength bounds a string's length in characters; 0 is unbounded.
	MaxLength int `json:"max_length,omitempty"`

	// Ref names the resource whose id a string value is, when the value
	// refers to an entity (Stripe's customer=cus_…): under the not_found
	// policy the entity must exist in the session.
	Ref string `json:"ref,omitempty"`

	// Unanswered says the provider answers this field in another shape
	// than a request sends it (Stripe's line_items[0][price] makes line
	// items; entitlement_feature=feat_x answers the feature object), so a
	// twin does not copy the value into the entity it answers with.
	Unanswered bool `json:"unanswered,omitempty"`
	// Answer, for an Unanswered field, is the value the provider answers
	// once a request sends one (Stripe answers a requested capability
	// "inactive" until the account's requirements are met); "" for none.
	Answer string `json:"answer,omitempty"`
}
