package openapi

import "github.com/wraithdev/wraith/twin/format"

// The twin.toml a GitHub import writes: format.Manifest's fields, every
// one optional, so the file holds only what the import decided (see
// tomlManifest for why), plus the GitHub fields of format.Keys.
type ghManifest struct {
	Format      int          `toml:"format"`
	Name        string       `toml:"name"`
	Provider    string       `toml:"provider,omitempty"`
	Upstream    string       `toml:"upstream,omitempty"`
	Description string       `toml:"description,omitempty"`
	PII         tomlPII      `toml:"pii"`
	Errors      ghErrors     `toml:"errors"`
	Routes      []tomlRoute  `toml:"routes,omitempty"`
	Resources   []ghResource `toml:"resources,omitempty"`
}

type ghErrors struct {
	NotFound        *format.Answer `toml:"not_found,omitempty"`
	InvalidRequest  *format.Answer `toml:"invalid_request,omitempty"`
	Validation      *format.Answer `toml:"validation,omitempty"`
	Idempotency     *format.Answer `toml:"idempotency,omitempty"`
	RateLimited     *format.Answer `toml:"rate_limited,omitempty"`
	UnexpectedState *format.Answer `toml:"unexpected_state,omitempty"`
}

type ghResource struct {
	Name           string            `toml:"name"`
	Class          string            `toml:"class,omitempty"`
	Collection     string            `toml:"collection,omitempty"`
	Item           string            `toml:"item"`
	CreatePaths    []string          `toml:"create_paths,omitempty"`
	ListPaths      []string          `toml:"list_paths,omitempty"`
	ReadPaths      []string          `toml:"read_paths,omitempty"`
	Key            string            `toml:"key,omitempty"`
	KeyPrefix      string            `toml:"key_prefix,omitempty"`
	IDKind         string            `toml:"id_kind,omitempty"`
	IDPrefix       string            `toml:"id_prefix,omitempty"`
	Parents        []string          `toml:"parents,omitempty"`
	ParentDefaults map[string]string `toml:"parent_defaults,omitempty"`
	Counter        string            `toml:"counter,omitempty"`
	List           string            `toml:"list,omitempty"`
	ListDefaults   map[string]string `toml:"list_defaults,omitempty"`
	CreateStatus   int               `toml:"create_status,omitempty"`
	Delete         string            `toml:"delete,omitempty"`
	DeleteStatus   int               `toml:"delete_status,omitempty"`
	Update         []string          `toml:"update,omitempty"`
	Required       []string          `toml:"required,omitempty"`
	TimeFormat     string            `toml:"time_format,omitempty"`
	Timestamps     []string          `toml:"timestamps,omitempty"`
	Immutable      []string          `toml:"immutable,omitempty"`
	Skeleton       string            `toml:"skeleton"`
	Computed       map[string]string `toml:"computed,omitempty"`
	UpdateRules    []tomlRule        `toml:"update_rules,omitempty"`
	Members        []ghMember        `toml:"members,omitempty"`
	Actions        []ghAction        `toml:"actions,omitempty"`
}

type ghMember struct {
	Path     string `toml:"path"`
	Field    string `toml:"field,omitempty"`
	Resource string `toml:"resource"`
	Param    string `toml:"param,omitempty"`
}

// ghAction's Params is a pointer so that "copy no parameter" (params = [])
// and "copy every parameter that names a field" (no key) both survive.
type ghAction struct {
	Name   string     `toml:"name"`
	Method string     `toml:"method,omitempty"`
	From   []string   `toml:"from,omitempty"`
	Params *[]string  `toml:"params,omitempty"`
	Rules  []tomlRule `toml:"rules,omitempty"`
}

func toGHAction(a format.Action) ghAction {
	out := ghAction{Name: a.Name, Method: a.Method, From: a.From, Rules: toRules(a.Rules)}
	if a.Params != nil {
		p := append([]string{}, a.Params...)
		out.Params = &p
	}
	return out
}

func toGHMembers(ms []format.Member) []ghMember {
	var out []ghMember
	for _, m := range ms {
		out = append(out, ghMember{Path: m.Path, Field: m.Field, Resource: m.Resource, Param: m.Param})
	}
	return out
}
