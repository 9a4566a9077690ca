package compiled

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/route"
	"github.com/wraithdev/wraith/twin/world"
)

// Keys is what a resource declares through format.Keys: how it is
// addressed, scoped, numbered, listed and answered. What a resource
// leaves out is its dialect's default (dialect.Defaults).
type Keys struct {
	Keyed          bool     // stored under an address built from its path, not its id
	KeyField       string   // the field the item path's last parameter names
	KeyParam       string   // that parameter's name
	KeyPrefix      string   // what the field has before the path's value ("refs/")
	AddrParams     []string // the item path's other parameters, in order
	IDKind         string   // "string", "integer" or "none"
	Parents        []string
	ParentDefaults map[string]string
	Counter        string
	Array          bool // lists are bare arrays paged by Link headers
	ListDefaults   []Filter
	CreateStatus   int
	DeleteStatus   int
	Required       []string
	Class          string
	RFC3339        bool
	Computed       []Computed
	UpdateRules    []Rule
	Members        []*Member
	Typed          bool // its objects name their type in "object" (dialect.Defaults.Typed)
}

// Computed is a field set on every write from a template.
type Computed struct {
	Path     []string // "owner.login" is [owner login]
	Template string
}

// Member is a sub-collection kept in an array field of its parent item.
type Member struct {
	Name         string
	Field        string
	Param        string
	ResourceName string
	Resource     *Resource // resolved once every resource is compiled
}

func compileKeys(spec *format.Resource, named *format.Errors, defaults dialect.Defaults) (*Keys, error) {
	k := &spec.Keys
	x := &Keys{
		Keyed:          spec.Keyed(),
		KeyField:       spec.KeyField(),
		KeyParam:       spec.KeyParam(),
		KeyPrefix:      k.KeyPrefix,
		IDKind:         k.IDKind,
		Parents:        k.Parents,
		ParentDefaults: k.ParentDefaults,
		Counter:        k.Counter,
		Array:          k.List == "array",
		CreateStatus:   k.CreateStatus,
		DeleteStatus:   k.DeleteStatus,
		Required:       k.Required,
		Class:          k.Class,
		RFC3339:        k.TimeFormat == "rfc3339",
		Typed:          defaults.Typed,
	}
	if x.IDKind == "" {
		x.IDKind = defaults.IDKind
	}
	if x.CreateStatus == 0 {
		x.CreateStatus = defaults.CreateStatus
	}
	if x.DeleteStatus == 0 {
		x.DeleteStatus = defaults.DeleteStatus
	}
	if x.Class == "" {
		x.Class = spec.Name
	}
	for _, p := range format.PathParams(spec.Item) {
		if p != x.KeyParam {
			x.AddrParams = append(x.AddrParams, p)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(k.ListDefaults)) {
		x.ListDefaults = append(x.ListDefaults, Filter{Field: f, Want: k.ListDefaults[f]})
	}
	for _, f := range slices.Sorted(maps.Keys(k.Computed)) {
		x.Computed = append(x.Computed, Computed{Path: strings.Split(f, "."), Template: k.Computed[f]})
	}
	var err error
	if x.UpdateRules, err = compileRules(k.UpdateRules, named); err != nil {
		return nil, fmt.Errorf("update_rules: %w", err)
	}
	for _, m := range k.Members {
		mm := &Member{Name: m.Path, Field: m.Field, Param: m.Param, ResourceName: m.Resource}
		if mm.Field == "" {
			mm.Field = m.Path
		}
		x.Members = append(x.Members, mm)
	}
	return x, nil
}

// endpointFor is what a resource's operation (see format.Operations)
// resolves to.
func (r *Resource) endpointFor(op format.Operation) *Endpoint {
	switch op.Op {
	case "list":
		return &Endpoint{Kind: KindList}
	case "create":
		return &Endpoint{Kind: KindCreate}
	case "retrieve":
		return &Endpoint{Kind: KindRetrieve}
	case "update":
		return &Endpoint{Kind: KindUpdate}
	case "delete":
		if r.OnDelete != nil {
			return &Endpoint{Kind: KindAction, Action: r.OnDelete}
		}
		return &Endpoint{Kind: KindDelete}
	case "member":
		for _, m := range r.Keys.Members {
			if m.Name == op.Name {
				return &Endpoint{Kind: KindMember, Member: m}
			}
		}
	}
	for _, a := range r.Actions {
		if a.Name == op.Name {
			return &Endpoint{Kind: KindAction, Action: a}
		}
	}
	return &Endpoint{Kind: KindPlain}
}

// linkMembers points every member at its resource, once all are compiled.
func linkMembers(resources map[string]*Resource) {
	for _, r := range resources {
		for _, m := range r.Keys.Members {
			m.Resource = resources[m.ResourceName]
		}
	}
}

// Address is the key an entity is stored under in a session: the id for
// a resource addressed by id, else the resource's name and the item
// path's values ("issue:octocat/hello/7"), so an item read under another
// parent misses.
func (r *Resource) Address(m *route.Match[*Endpoint]) string {
	if !r.Keys.Keyed {
		return m.Param("id")
	}
	x := r.Keys
	if x.ByID() {
		return m.Param(x.KeyParam)
	}
	var b strings.Builder
	b.WriteString(r.Name)
	b.WriteByte(':')
	for _, p := range x.AddrParams {
		b.WriteString(m.Param(p))
		b.WriteByte('/')
	}
	b.WriteString(x.KeyPrefix)
	b.WriteString(m.Param(x.KeyParam))
	return b.String()
}

// ScopeOf returns the values of r's parents for a request: its path's
// values, else the declared defaults ("" for neither).
func (x *Keys) ScopeOf(m *route.Match[*Endpoint]) []string {
	vals := make([]string, len(x.Parents))
	for i, p := range x.Parents {
		if v := m.Param(p); v != "" {
			vals[i] = v
		} else {
			vals[i] = x.ParentDefaults[p]
		}
	}
	return vals
}

func (x *Keys) parentValue(scope []string, name string) string {
	for i, p := range x.Parents {
		if p == name {
			return scope[i]
		}
	}
	return ""
}

// AddressOf is the address of an entity of r with scope and key text.
func (r *Resource) AddressOf(scope []string, key string) string {
	x := r.Keys
	if !x.Keyed || x.ByID() {
		return key
	}
	var b strings.Builder
	b.WriteString(r.Name)
	b.WriteByte(':')
	for _, p := range x.AddrParams {
		b.WriteString(x.parentValue(scope, p))
		b.WriteByte('/')
	}
	b.WriteString(key)
	return b.String()
}

// KeyText is a key field's value as a path carries it.
func KeyText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	}
	return ""
}

// InScope reports whether an entity's scope matches want, position by
// position; "" in want matches anything.
func InScope(scope string, want []string) bool {
	for _, w := range want {
		v, rest, _ := strings.Cut(scope, "/")
		if w != "" && v != w {
			return false
		}
		scope = rest
	}
	return true
}

// Resources with parents that are not keyed by path (a customer's tax ids
// and sources, an account's persons and external accounts). Their ids are unique on
// their own, so an entity whose item path is the resource's own
// (/v1/tax_ids/{id}) is stored under its id (ByID) and its parents only
// scope it: a path that names a parent (/v1/customers/{customer}/tax_ids/{id})
// reads, changes and deletes only the entities of that parent, and lists
// only them. An entity under another parent is, at that path, as absent
// as at the provider.

// ByID reports whether a keyed resource's entities are stored under their
// id alone: the key is "id", unprefixed, and the item path carries no
// parent.
func (x *Keys) ByID() bool {
	return x.KeyField == "id" && x.KeyPrefix == "" && len(x.AddrParams) == 0
}

// InPathScope reports whether ent belongs to the parents the matched path
// names; a parent the path does not name matches any value.
func (r *Resource) InPathScope(ent *world.Entity, m *route.Match[*Endpoint]) bool {
	x := r.Keys
	if len(x.Parents) == 0 {
		return true
	}
	want := make([]string, len(x.Parents))
	named := false
	for i, p := range x.Parents {
		if want[i] = m.Param(p); want[i] != "" {
			named = true
		}
	}
	return !named || InScope(ent.Scope, want)
}

// Scoped returns the session's entity at id when the matched path's
// parents hold it, else nil.
func (r *Resource) Scoped(ent *world.Entity, m *route.Match[*Endpoint]) *world.Entity {
	if ent != nil && !r.InPathScope(ent, m) {
		return nil
	}
	return ent
}

// ShownID is the id an answer names for an entity stored at addr: the
// address without its resource name and parents' values, so a keyed
// entity whose key is its id answers its tombstone and not-found with
// "person_1", not "person:acct_1/person_1".
func (r *Resource) ShownID(addr string) string {
	x := r.Keys
	if !x.Keyed || x.ByID() || x.KeyField != "id" {
		return addr
	}
	rest, ok := strings.CutPrefix(addr, r.Name+":")
	if !ok {
		return addr
	}
	for range x.AddrParams {
		_, rest, _ = strings.Cut(rest, "/")
	}
	return rest
}

// TimeValue is a session time as the resource writes it.
func (x *Keys) TimeValue(now int64) any {
	if x.RFC3339 {
		return time.Unix(now, 0).UTC().Format(time.RFC3339)
	}
	return json.Number(strconv.FormatInt(now, 10))
}

// Filter keeps the entities of a list whose field has the value want
// (a resource's list_defaults, and a list request's field parameters).
type Filter struct {
	Field string
	Want  string
}
