package openapi

import (
	"github.com/wraithdev/wraith/twin/format"
)

// The twin.toml an import writes. These mirror format.Manifest with every
// field optional, so the file holds only what the import decided (an
// empty list in twin.toml means "none", which is not what an absent field
// means), and so a field added to the format later does not change the
// bytes, and the digest, of an import.
type tomlManifest struct {
	Format      int            `toml:"format"`
	Name        string         `toml:"name"`
	Provider    string         `toml:"provider,omitempty"`
	Upstream    string         `toml:"upstream,omitempty"`
	Description string         `toml:"description,omitempty"`
	PII         tomlPII        `toml:"pii"`
	Errors      any            `toml:"errors"` // tomlErrors, or a map with extra shapes; see errorsTable
	Routes      []tomlRoute    `toml:"routes,omitempty"`
	Resources   []tomlResource `toml:"resources,omitempty"`
}

type tomlPII struct {
	Verbatim []string `toml:"verbatim,omitempty"`
}

type tomlErrors struct {
	NotFound        *format.Answer `toml:"not_found,omitempty"`
	InvalidRequest  *format.Answer `toml:"invalid_request,omitempty"`
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
	Name        string     `toml:"name"`
	Collection  string     `toml:"collection"`
	Item        string     `toml:"item"`
	IDPrefix    string     `toml:"id_prefix"`
	Skeleton    string     `toml:"skeleton"`
	Timestamps  []string   `toml:"timestamps,omitempty"`
	Immutable   []string   `toml:"immutable,omitempty"`
	Omit        []string   `toml:"omit,omitempty"`
	ListURL     string     `toml:"list_url,omitempty"`
	Delete      string     `toml:"delete,omitempty"`
	DeletedBody string     `toml:"deleted_body,omitempty"`
	Create      []tomlRule `toml:"create,omitempty"`
	Actions     []any      `toml:"actions,omitempty"`   // tomlAction or tomlActionNone
	OnDelete    any        `toml:"on_delete,omitempty"` // tomlAction or tomlActionNone
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

// tomlAction copies the parameters it lists, or, without a list, every
// parameter that names a field.
type tomlAction struct {
	Name   string     `toml:"name"`
	From   []string   `toml:"from,omitempty"`
	Params []string   `toml:"params,omitempty"`
	Rules  []tomlRule `toml:"rules,omitempty"`
}

// tomlActionNone copies no parameter: params = [].
type tomlActionNone struct {
	Name   string     `toml:"name"`
	From   []string   `toml:"from,omitempty"`
	Params []string   `toml:"params"`
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

// toAction converts an action; nil Params (copy every parameter that
// names a field) is written by leaving the key out.
func toAction(a format.Action) any {
	if a.Params != nil && len(a.Params) == 0 {
		return tomlActionNone{Name: a.Name, From: a.From, Params: []string{}, Rules: toRules(a.Rules)}
	}
	return tomlAction{Name: a.Name, From: a.From, Params: a.Params, Rules: toRules(a.Rules)}
}

func toErrors(e format.Errors) tomlErrors {
	return tomlErrors{NotFound: e.NotFound, InvalidRequest: e.InvalidRequest, Idempotency: e.Idempotency, RateLimited: e.RateLimited, UnexpectedState: e.UnexpectedState}
}

// errorsTable is [errors] as twin.toml declares it: the inferred shapes
// in their fixed order, or, when the overlay adds extra shapes for its
// fail rules, every shape by name (sorted, so the bytes are still a
// function of the inputs). An import without extras keeps the bytes it
// had before extras existed.
func errorsTable(e format.Errors, extra map[string]format.Answer) any {
	t := toErrors(e)
	if len(extra) == 0 {
		return t
	}
	m := map[string]*format.Answer{}
	for name, a := range map[string]*format.Answer{"not_found": t.NotFound, "invalid_request": t.InvalidRequest, "idempotency": t.Idempotency, "rate_limited": t.RateLimited, "unexpected_state": t.UnexpectedState} {
		if a != nil {
			m[name] = a
		}
	}
	for name, a := range extra {
		m[name] = &a
	}
	return m
}
