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
}
