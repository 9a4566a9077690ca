package openapi

import (
	"time"

	"github.com/wraithdev/wraith/twin/format"
)

// The twin.toml an import writes, in either style (the description's own
// inference or GitHub's). These mirror format.Manifest with every field
// optional, so the file holds only what the import decided (an empty list
// in twin.toml means "none", which is not what an absent field means),
// and so a field added to the format later does not change the bytes,
// and the digest, of an import. Only the resource tables differ by style
// (tomlResource, ghResource): each keeps the key order its committed
// twins were written in.
type tomlManifest struct {
	Format      int    `toml:"format"`
	Name        string `toml:"name"`
	Provider    string `toml:"provider,omitempty"`
	Upstream    string `toml:"upstream,omitempty"`
	Description string `toml:"description,omitempty"`
	// RecordedAt is the date the twin is as of (see recordedAt).
	RecordedAt *time.Time `toml:"recorded_at,omitempty"`
	PII        tomlPII    `toml:"pii"`
	// Errors is tomlErrors, or a map with extra shapes; see errorsTable.
	Errors any         `toml:"errors"`
	Routes []tomlRoute `toml:"routes,omitempty"`
	// Resources is []tomlResource or []ghResource.
	Resources any `toml:"resources,omitempty"`
}

type tomlPII struct {
	Verbatim []string `toml:"verbatim,omitempty"`
}

// tomlErrors is [errors] in format.ErrorKeys order.
type tomlErrors struct {
	NotFound        *format.Answer `toml:"not_found,omitempty"`
	InvalidRequest  *format.Answer `toml:"invalid_request,omitempty"`
	Validation      *format.Answer `toml:"validation,omitempty"`
	Idempotency     *format.Answer `toml:"idempotency,omitempty"`
	RateLimited     *format.Answer `toml:"rate_limited,omitempty"`
	UnexpectedState *format.Answer `toml:"unexpected_state,omitempty"`
}

type tomlRoute struct {
	Method string `toml:"method"`
	Path   string `toml:"path"`
	Status int    `toml:"status,omitempty"`
	Body   string `toml:"body,omitempty"`
}

type tomlResource struct {
	Name        string       `toml:"name"`
	Collection  string       `toml:"collection"`
	Item        string       `toml:"item"`
	IDPrefix    string       `toml:"id_prefix"`
	Skeleton    string       `toml:"skeleton"`
	Timestamps  []string     `toml:"timestamps,omitempty"`
	Immutable   []string     `toml:"immutable,omitempty"`
	Omit        []string     `toml:"omit,omitempty"`
	ListURL     string       `toml:"list_url,omitempty"`
	Delete      string       `toml:"delete,omitempty"`
	DeletedBody string       `toml:"deleted_body,omitempty"`
	Create      []tomlRule   `toml:"create,omitempty"`
	Actions     []tomlAction `toml:"actions,omitempty"`
	OnDelete    *tomlAction  `toml:"on_delete,omitempty"`
	// Last, so that an import without them keeps its bytes.
	NestedDefaults map[string]string `toml:"nested_defaults,omitempty"`
	Expand         []format.Expand   `toml:"expand,omitempty"`
	// Parents and the paths under them (nested.go), last for the same
	// reason.
	Parents        []string          `toml:"parents,omitempty"`
	ParentDefaults map[string]string `toml:"parent_defaults,omitempty"`
	CreatePaths    []string          `toml:"create_paths,omitempty"`
	ListPaths      []string          `toml:"list_paths,omitempty"`
	ReadPaths      []string          `toml:"read_paths,omitempty"`
}

// tomlAction is an action of either style. Params is a pointer so that
// "copy no parameter" (params = []) and "copy every parameter that names
// a field" (no key) both survive.
type tomlAction struct {
	Name   string     `toml:"name"`
	Method string     `toml:"method,omitempty"`
	From   []string   `toml:"from,omitempty"`
	Params *[]string  `toml:"params,omitempty"`
	Rules  []tomlRule `toml:"rules,omitempty"`
}

type tomlRule struct {
	When     map[string]any    `toml:"when,omitempty"`
	Set      map[string]any    `toml:"set,omitempty"`
	Fail     string            `toml:"fail,omitempty"`
	FailWith map[string]string `toml:"fail_with,omitempty"`
}

func toRules(rs []format.Rule) []tomlRule {
	var out []tomlRule
	for _, r := range rs {
		out = append(out, tomlRule{When: r.When, Set: r.Set, Fail: r.Fail, FailWith: r.FailWith})
	}
	return out
}

// toAction converts an action.
func toAction(a format.Action) tomlAction {
	out := tomlAction{Name: a.Name, Method: a.Method, From: a.From, Rules: toRules(a.Rules)}
	if a.Params != nil {
		p := append([]string{}, a.Params...)
		out.Params = &p
	}
	return out
}

func toActions(as []format.Action) []tomlAction {
	var out []tomlAction
	for _, a := range as {
		out = append(out, toAction(a))
	}
	return out
}

func toErrors(e format.Errors) tomlErrors {
	return tomlErrors{NotFound: e.NotFound, InvalidRequest: e.InvalidRequest, Validation: e.Validation, Idempotency: e.Idempotency, RateLimited: e.RateLimited, UnexpectedState: e.UnexpectedState}
}

// errorsTable is [errors] as twin.toml declares it: the inferred shapes
// in their fixed order, or, when the overlay adds extra shapes for its
// fail rules, every shape by name (sorted, so the bytes are still a
// function of the inputs). An import without extras keeps the bytes it
// had before extras existed.
func errorsTable(e format.Errors, extra map[string]format.Answer) any {
	if len(extra) == 0 {
		return toErrors(e)
	}
	m := map[string]*format.Answer{}
	for _, name := range format.ErrorKeys {
		if a := e.Named(name); a != nil {
			m[name] = a
		}
	}
	for name, a := range extra {
		m[name] = &a
	}
	return m
}
