package dialect

import "github.com/wraithdev/wraith/twin/object"

// Expander is what a dialect implements when a request may ask for the ids
// in its answer to be replaced by the entities they name (Stripe's
// expand[]=customer, expand[]=data.latest_charge.balance_transaction).
// Expansion happens as the answer is written and only in it: what the
// session stores keeps the ids. The engine asserts it once.
//
// The engine asks in two steps, so that a write whose expansion the
// provider refuses changes nothing: Expansions before the request runs,
// then Expand on its 2xx answer.
type Expander interface {
	// Expansions reads what q's parameters ask to expand, refusing a path
	// the provider cannot expand; nil when they ask for nothing.
	Expansions(q ExpandQuery) ([]string, *Refusal)
	// Expand replaces, in answer, what paths (from Expansions) name by
	// the session's entities, and reports whether it changed answer.
	Expand(q ExpandQuery, paths []string, answer *object.Object, in Entities) bool
}

// ExpandQuery is the request whose answer is expanded.
type ExpandQuery struct {
	Params map[string]any // the request's decoded parameters
	// Resource names the type the answer is, or whose page it is; ""
	// for an answer of no declared resource.
	Resource string
	// Page says the answer is a list or search page of Resource.
	Page bool
	// Search says the page is a search's (ListQuery.Search).
	Search bool
	// Fields returns the expandable fields of an object type: dotted
	// paths from the object to each id that names an entity, and to each
	// object or list of objects of a declared type, mapped to that type
	// (format.Nested.Expandable). nil when the twin declares none for it:
	// the dialect then expands only what names an entity of the session.
	Fields func(object string) map[string]string
}

// Entities are the session's entities as an expansion reads them: copies
// the caller may change.
type Entities interface {
	// Find returns the entity with id as a read finds it (made in the
	// session, seeded, or observed); typ is the type the field names,
	// which the entity synthesized under the synthesize policy takes.
	// nil when the session has none.
	Find(typ, id string) *object.Object
	// Referring returns the entities of typ whose field names id, newest
	// first, at most limit of them, and whether there are more: the list
	// an entity holds of what refers to it (a charge's refunds, whose
	// charge is the charge), which a provider includes when expanded.
	Referring(typ, field, id string, limit int) (items []*object.Object, more bool)
	// Collection is the collection path of typ ("/v1/charges"), "" when
	// the twin declares none.
	Collection(typ string) string
}

// Filterer is what a dialect implements when its lists take parameters
// that filter otherwise than by a top-level field's value, which the
// engine compares itself: ranges (created[gte]), sets (ids[]), fields
// nested in the entity (a subscription's items' prices), and a list's
// default (Stripe's subscriptions without status are the ones not
// canceled). The engine asserts it once.
type Filterer interface {
	// Filter returns the test that list parameter param, sent as value,
	// puts to each entity of resource; ok false leaves the parameter to
	// the engine.
	Filter(resource, param string, value any) (test func(*object.Object) bool, ok bool)
	// DefaultFilter is the test a list of resource puts to each entity
	// when params do not name it otherwise; nil for none.
	DefaultFilter(resource string, params map[string]any) func(*object.Object) bool
}
