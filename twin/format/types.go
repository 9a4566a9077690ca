// Package format defines twin format version 1 and loads it.
//
// A twin is a folder (or any fs.FS rooted at one):
//
//	twin.toml                        the manifest: name, provider, resources, PII policy, fixture imports
//	recordings/<recording>/<n>.json  one recorded exchange per file, n = 0, 1, 2, ...
//	fixtures/<set>.json              one fixture set per file
//
// The loader reads everything once, validates it, and reports every problem
// with the file, the field and what was expected. docs/twin-format.md is the
// user-facing description of the same format.
package format

import (
	"encoding/json"
	"net/http"
	"time"
)

// Version is the twin format version this package reads and writes.
const Version = 1

// DefaultDialect is the dialect of a twin.toml that names none.
const DefaultDialect = "stripe"

// DialectName is the dialect m names, or DefaultDialect.
func (m *Manifest) DialectName() string {
	if m.Dialect == "" {
		return DefaultDialect
	}
	return m.Dialect
}

// Manifest is twin.toml.
//
// These types are the format's one schema: the loader decodes into them
// and WriteManifest encodes them, so a field's TOML key, its place in the
// written file (declaration order; go-toml writes a table's plain keys
// before its sub-tables) and whether it may be left out (omitzero: a
// zero value is not written) are all declared here. Fields without
// omitzero are always written; [pii] and [errors] are left out when
// empty, so a new recording's twin.toml is its three keys. A nil list is
// left out while an empty one is written as [], since for some fields
// (pii.fields, an action's params) "none" and "not set" differ.
type Manifest struct {
	Format   int    `toml:"format"`
	Name     string `toml:"name"`
	Provider string `toml:"provider,omitzero"`
	// Dialect names how the provider speaks (parameters, lists, ids,
	// errors, credentials; SPEC §13): "stripe", "github" or "rest".
	// Empty is DefaultDialect, what every twin was served as before
	// twins named one.
	Dialect  string `toml:"dialect,omitzero"`
	Upstream string `toml:"upstream,omitzero"`
	// Hosts are the provider hosts whose traffic wraith run and wraith
	// proxy send to this twin (SPEC §15); empty: the host of Upstream.
	Hosts       []string  `toml:"hosts,omitzero"`
	Description string    `toml:"description,omitzero"`
	RecordedAt  time.Time `toml:"recorded_at,omitzero"` // an imported twin's: the date of its description
	PII         PII       `toml:"pii,omitzero"`
	Fixtures    Fixtures  `toml:"fixtures,omitzero"`
	Errors      Errors    `toml:"errors,omitzero"`
	Routes      []Route   `toml:"routes,omitzero"`
	// Resources are written after Routes, though the engine serves them
	// first: the committed imported twins were written in this order.
	Resources []Resource `toml:"resources,omitzero"`
	// FaultProfiles are the twin's own fault profiles (see faults.go);
	// optional.
	FaultProfiles []FaultProfile `toml:"fault_profiles,omitzero"`
}

// PII is the twin's scrub policy: values under these field names are
// tokenized, except those listed as verbatim.
type PII struct {
	// Fields replaces the default list of PII-shaped field names when set.
	Fields []string `toml:"fields,omitzero"`
	// Verbatim names fields served as they are in synthesized answers.
	Verbatim []string `toml:"verbatim,omitzero"`
}

// Fixtures configures fixture sets beyond the twin's own fixtures folder.
type Fixtures struct {
	// Imports names other twins whose fixture sets this twin can load,
	// as TWIN:SET.
	Imports []string `toml:"imports,omitzero"`
}

// Errors are provider-shaped error answers. Bodies are JSON text in which
// {id}, {object}, {status}, {param}, {action} and {message} are replaced.
type Errors struct {
	NotFound       *Answer `toml:"not_found,omitzero"`
	InvalidRequest *Answer `toml:"invalid_request,omitzero"`
	// Validation answers a create missing a required field ({resource},
	// {param}, {code} = "missing_field") or naming an item that exists
	// ({code} = "already_exists"). Without it, InvalidRequest answers.
	Validation *Answer `toml:"validation,omitzero"`
	// MissingReference answers a write whose parameter names an entity
	// the session lacks ({param}, {object}, {id}, {message}: Stripe's
	// 400 resource_missing). Without it, InvalidRequest answers.
	MissingReference *Answer `toml:"missing_reference,omitzero"`
	// Unreadable answers a body that cannot be read as its Content-Type
	// (or its dialect) says ({message}: GitHub's 400 Problems parsing
	// JSON). Without it, InvalidRequest answers.
	Unreadable      *Answer `toml:"unreadable,omitzero"`
	Idempotency     *Answer `toml:"idempotency,omitzero"`
	RateLimited     *Answer `toml:"rate_limited,omitzero"`
	UnexpectedState *Answer `toml:"unexpected_state,omitzero"`
	// Extra are the other [errors.*] tables (api_error, card_declined,
	// ...), which fault effects and rule fails name. The decoder fills it
	// by hand (decodeExtraErrors) and WriteManifest writes it.
	Extra map[string]*Answer `toml:"-"`
}

// Answer is a status and a JSON body template.
type Answer struct {
	Status int    `toml:"status"`
	Body   string `toml:"body"`
}

// Route declares a route template that is not a resource route, such as
// GET /v1/balance, so that unrecorded variants of it are known.
type Route struct {
	Method string `toml:"method"`
	Path   string `toml:"path"`
	// Status is the template answer's status; default 200.
	Status int `toml:"status,omitzero"`
	// Body, when set, is the route's response shape (JSON): the template
	// answer for requests no recording matches. Twins imported from an API
	// description have no recordings to take a shape from. Optional.
	Body string `toml:"body,omitzero"`
	// ContentType is the media type of a Body that is not JSON (Stripe's
	// quote PDF, application/pdf): the body is then served as written.
	// Optional; JSON by default.
	ContentType string `toml:"content_type,omitzero"`
	// ListKey names the member of Body that holds a page of entries,
	// when the route lists a collection in an object of its own
	// ({"total_count": 1, "workflow_runs": [...]}): under the not_found
	// policy the route answers that member empty, as it does a Body that
	// is a bare array or the dialect's own list. Optional.
	ListKey string `toml:"list_key,omitzero"`
	// Safe says the template is true whatever the request and the
	// session hold: a write no state the twin keeps can contradict,
	// whose answer does not depend on what was sent. Under the not_found
	// policy a write to a route that is not safe answers 501
	// unmodelled-write rather than its template. Optional.
	Safe bool `toml:"safe,omitzero"`
}

// Resource is a provider object type with create/read/update/delete/list
// and actions. Its fields are in the order twin.toml lists them (see
// Manifest): the committed Stripe twin's order, with the fields it does
// not use (Update, NotFound, Keys) where they fit.
type Resource struct {
	// Name is the provider's object type ("customer"), matched against the
	// "object" field of recorded and fixture bodies.
	Name       string `toml:"name"`
	Collection string `toml:"collection,omitzero"` // "/v1/customers"
	Item       string `toml:"item"`                // "/v1/customers/{id}"
	IDPrefix   string `toml:"id_prefix,omitzero"`  // "cus_"
	// Skeleton is the JSON body a newly created object starts from, before
	// request parameters and create rules apply.
	Skeleton string `toml:"skeleton"`
	// Timestamps are fields set to the session clock on create.
	Timestamps []string `toml:"timestamps,omitzero"`
	// Immutable names fields a parameter may not change (id, object...).
	Immutable []string `toml:"immutable,omitzero"`
	// Omit names collection operations the provider does not have: "list",
	// "create", "update" (see omit.go). Optional; default none.
	Omit []string `toml:"omit,omitzero"`
	// ListURL is the "url" of the list envelope when it is not the
	// collection path (Stripe lists some types under another path).
	// Optional.
	ListURL string `toml:"list_url,omitzero"`
	// Update names the methods that update an item; default POST.
	Update []string `toml:"update,omitzero"`
	// Delete is "not_found" (reads after delete answer the not-found
	// shape), "tombstone" (reads answer DeletedBody with status 200),
	// "none" (the resource cannot be deleted) or "action" (DELETE runs
	// OnDelete and keeps the entity, as Stripe cancels a subscription).
	// Default "not_found". DeletedBody is, for "not_found" too, the
	// answer of a delete that answers 200 (OpenAI's {id, object,
	// deleted}), rather than the entity.
	Delete      string `toml:"delete,omitzero"`
	DeletedBody string `toml:"deleted_body,omitzero"`
	// Create lists rules applied after parameters on create; the first
	// whose When holds applies.
	Create  []Rule   `toml:"create,omitzero"`
	Actions []Action `toml:"actions,omitzero"`
	// OnDelete is the transition DELETE {item} runs when Delete is
	// "action". Optional otherwise.
	OnDelete *Action `toml:"on_delete,omitzero"`
	NotFound *Answer `toml:"not_found,omitzero"`
	// Events are the provider's event types for the resource's writes
	// (events.go). Optional.
	Events Events `toml:"events,omitzero"`

	Nested
	Keys
}

// Keys are the optional fields that address, scope, list and answer
// resources that are not Stripe-shaped (GitHub's issues under
// /repos/{owner}/{repo}). A resource that sets none of them is served
// exactly as before; see docs/twin-format.md for each field.
type Keys struct {
	// Key is the field that the item path's last parameter names; "id"
	// by default.
	Key string `toml:"key,omitzero"`
	// KeyPrefix is what the key field's value has before the path's value
	// ("refs/" for git refs: the path says heads/main, the field
	// refs/heads/main).
	KeyPrefix string `toml:"key_prefix,omitzero"`
	// IDKind is how a create fills "id": "string" (id_prefix + random
	// characters, the default), "digits" (a string of decimal digits,
	// numbered as "integer" ids are: Jira's project id "10000"),
	// "integer" or "none".
	IDKind string `toml:"id_kind,omitzero"`
	// Parents are path parameters that scope the entity: it belongs to
	// their values, and lists under a parent show only its children.
	Parents []string `toml:"parents,omitzero"`
	// ParentDefaults give parents that a create or list path does not
	// carry (POST /user/repos creates in the configured owner's account).
	ParentDefaults map[string]string `toml:"parent_defaults,omitzero"`
	// Counter names a counter, one per parent scope, shared by every
	// resource naming it, that numbers new entities in their key field.
	Counter string `toml:"counter,omitzero"`
	// CreatePaths and ListPaths add create (POST) and list (GET) paths
	// beside Collection; ReadPaths add GET paths beside Item.
	CreatePaths []string `toml:"create_paths,omitzero"`
	ListPaths   []string `toml:"list_paths,omitzero"`
	ReadPaths   []string `toml:"read_paths,omitzero"`
	// SearchPaths are GET paths that search the resource's entities with
	// a query its dialect reads (Stripe's /v1/charges/search?query=...).
	SearchPaths []string `toml:"search_paths,omitzero"`
	// List is the list answer: "stripe" (the object:list envelope, the
	// default), "array" (a bare JSON array paged by page/per_page with
	// a Link header) or "envelope" (that page in the ListKey member of
	// ListBody, as Box answers {"entries": [...], "total_count": ...}).
	List string `toml:"list,omitzero"`
	// ListKey and ListBody are an "envelope" list's member holding the
	// page and the JSON object around it (its other members as the
	// description samples them).
	ListKey  string `toml:"list_key,omitzero"`
	ListBody string `toml:"list_body,omitzero"`
	// ListDefaults filter lists on a field when the request does not name
	// it ({state = "open"}); the value "all" lifts the filter.
	ListDefaults map[string]string `toml:"list_defaults,omitzero"`
	// ItemEnvelope is the member an entity is wrapped in, in the answers
	// of its create, read, update and delete and in the JSON bodies of
	// its writes ({"data": {...}}, as Asana and Directus answer and are
	// sent); "" is a bare entity. A list's page has its own envelope
	// (List). Optional.
	ItemEnvelope string `toml:"item_envelope,omitzero"`
	// CreateBody is a create's answer where the provider answers a stub
	// of the new entity rather than the entity (Jira's {id, key, self}):
	// a JSON object whose string values "$.field" are the entity's field
	// as it is, whose "$" is the entity whole, and whose other strings
	// have each {field} replaced by the field's text ("{id}" answers an
	// integer id as a string). It is wrapped in ItemEnvelope unless it
	// names the envelope member itself ({"droplet": "$", "links": ...}).
	// Optional: a create answers the entity.
	CreateBody string `toml:"create_body,omitzero"`
	// CreateStatus and DeleteStatus are the statuses of a create (200,
	// 201 or 202) and of a delete (200, or 204 with no body).
	CreateStatus int `toml:"create_status,omitzero"`
	DeleteStatus int `toml:"delete_status,omitzero"`
	// Required names create parameters that must be present.
	Required []string `toml:"required,omitzero"`
	// Class is the resource's name in validation errors ("Issue").
	Class string `toml:"class,omitzero"`
	// TimeFormat is how timestamps and $now are written: "unix" (the
	// default) or "rfc3339".
	TimeFormat string `toml:"time_format,omitzero"`
	// Computed fields are set on every write from a template of {base}
	// (the request's scheme and host), parents and top-level fields. A
	// dotted name sets a nested field ("owner.login").
	Computed map[string]string `toml:"computed,omitzero"`
	// UpdateRules apply after the parameters of an update, as Create
	// rules do after a create's.
	UpdateRules []Rule `toml:"update_rules,omitzero"`
	// Members are sub-collections kept in an array field of the item.
	Members []Member `toml:"members,omitzero"`
}

// Member is a sub-collection stored in an array field of its parent item:
// POST {item}/{path} adds entities of another resource, by key, to it.
type Member struct {
	Path     string `toml:"path"`           // one segment: "labels"
	Field    string `toml:"field,omitzero"` // the array field; Path by default
	Resource string `toml:"resource"`       // the member resource, found by key in the item's scope
	Param    string `toml:"param,omitzero"` // the body field listing keys; a bare JSON array also works
}

// Action is a state-machine transition: POST (or Method) {Item}/{Name}.
type Action struct {
	Name string `toml:"name"`
	// Method is the action's method: POST (default) or PUT.
	Method string `toml:"method,omitzero"`
	// From lists the statuses the action is allowed from; empty = any.
	From []string `toml:"from,omitzero"`
	// Rules apply in order; the first whose When holds applies.
	Rules []Rule `toml:"rules,omitzero"`
	// Params names request parameters the action copies onto the object.
	Params []string `toml:"params,omitzero"`
}

// Rule sets fields when conditions hold. A When value of "*" means "present
// and not null"; other values must be equal. Set values are literals, or
// strings "$now", "$now+SECS", "$.field" (another field's value) or
// "$$..." for a literal string starting with "$".
type Rule struct {
	When map[string]any `toml:"when,omitzero"`
	Set  map[string]any `toml:"set,omitzero"`
	// Fail, when set, names an [errors.*] table: the rule's Set still
	// applies and is saved, and the answer is that error, its {code},
	// {decline_code}, {message} and {doc_url} filled from FailWith and
	// a "{entity}" string replaced by the updated object (a declined
	// card leaves the payment intent changed and answers 402).
	Fail     string            `toml:"fail,omitzero"`
	FailWith map[string]string `toml:"fail_with,omitzero"`
}

// Exchange is one recorded request and response.
type Exchange struct {
	Format     int       `json:"format"`
	RecordedAt time.Time `json:"recorded_at"`
	Request    Request   `json:"request"`
	Response   Response  `json:"response"`

	// Recording and Index locate the exchange: recordings/<Recording>/<Index>.json.
	Recording string `json:"-"`
	Index     int    `json:"-"`
}

// Request is the recorded request, after scrubbing.
type Request struct {
	Method  string          `json:"method"`
	Path    string          `json:"path"`
	Query   string          `json:"query,omitempty"`
	Headers http.Header     `json:"headers,omitempty"`
	Body    json.RawMessage `json:"body,omitempty"` // JSON body as JSON
	Form    string          `json:"form,omitempty"` // form body as text
}

// Response is the recorded response, after scrubbing. A JSON body is
// stored as JSON (Body) and served compacted; anything else as text
// (BodyText).
type Response struct {
	Status   int             `json:"status"`
	Headers  http.Header     `json:"headers,omitempty"`
	Body     json.RawMessage `json:"body,omitempty"`
	BodyText string          `json:"body_text,omitempty"`
}

// FixtureSet is fixtures/<set>.json.
type FixtureSet struct {
	Format      int               `json:"format"`
	Description string            `json:"description"`
	Entities    []json.RawMessage `json:"entities"`

	Name string `json:"-"`
}
