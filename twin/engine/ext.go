package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/format"
)

// ext is what a resource declares through format.Keys: how it is
// addressed, scoped, numbered, listed and answered. What a resource
// leaves out is its dialect's default (dialect.Defaults).
type ext struct {
	keyed        bool     // stored under an address built from its path, not its id
	keyField     string   // the field the item path's last parameter names
	keyParam     string   // that parameter's name
	keyPrefix    string   // what the field has before the path's value ("refs/")
	addrParams   []string // the item path's other parameters, in order
	idKind       string   // "string", "integer" or "none"
	parents      []string
	defaults     map[string]string
	counter      string
	array        bool // lists are bare arrays paged by Link headers
	listDefaults []fieldFilter
	createStatus int
	deleteStatus int
	required     []string
	class        string
	rfc3339      bool
	computed     []computed
	updateRules  []rule
	members      []*member
	typed        bool // its objects name their type in "object" (dialect.Defaults.Typed)
}

// computed is a field set on every write from a template.
type computed struct {
	path []string // "owner.login" is [owner login]
	tmpl string
}

// member is a sub-collection kept in an array field of its parent item.
type member struct {
	name     string
	field    string
	param    string
	resource string
	res      *resource // resolved once every resource is compiled
}

func compileExt(spec *format.Resource, defaults dialect.Defaults) (*ext, error) {
	k := &spec.Keys
	x := &ext{
		keyed:        spec.Keyed(),
		keyField:     spec.KeyField(),
		keyParam:     spec.KeyParam(),
		keyPrefix:    k.KeyPrefix,
		idKind:       k.IDKind,
		parents:      k.Parents,
		defaults:     k.ParentDefaults,
		counter:      k.Counter,
		array:        k.List == "array",
		createStatus: k.CreateStatus,
		deleteStatus: k.DeleteStatus,
		required:     k.Required,
		class:        k.Class,
		rfc3339:      k.TimeFormat == "rfc3339",
		typed:        defaults.Typed,
	}
	if x.idKind == "" {
		x.idKind = defaults.IDKind
	}
	if x.createStatus == 0 {
		x.createStatus = defaults.CreateStatus
	}
	if x.deleteStatus == 0 {
		x.deleteStatus = defaults.DeleteStatus
	}
	if x.class == "" {
		x.class = spec.Name
	}
	for _, p := range format.PathParams(spec.Item) {
		if p != x.keyParam {
			x.addrParams = append(x.addrParams, p)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(k.ListDefaults)) {
		x.listDefaults = append(x.listDefaults, fieldFilter{field: f, want: k.ListDefaults[f]})
	}
	for _, f := range slices.Sorted(maps.Keys(k.Computed)) {
		x.computed = append(x.computed, computed{path: strings.Split(f, "."), tmpl: k.Computed[f]})
	}
	var err error
	if x.updateRules, err = compileRules(k.UpdateRules); err != nil {
		return nil, fmt.Errorf("update_rules: %w", err)
	}
	for _, m := range k.Members {
		mm := &member{name: m.Path, field: m.Field, param: m.Param, resource: m.Resource}
		if mm.field == "" {
			mm.field = m.Path
		}
		x.members = append(x.members, mm)
	}
	return x, nil
}

// endpointFor is what a resource's operation (see format.Operations)
// resolves to.
func (r *resource) endpointFor(op format.Operation) *endpoint {
	switch op.Op {
	case "list":
		return &endpoint{kind: kindList}
	case "create":
		return &endpoint{kind: kindCreate}
	case "retrieve":
		return &endpoint{kind: kindRetrieve}
	case "update":
		return &endpoint{kind: kindUpdate}
	case "delete":
		if r.onDelete != nil {
			return &endpoint{kind: kindAction, action: r.onDelete}
		}
		return &endpoint{kind: kindDelete}
	case "member":
		for _, m := range r.ext.members {
			if m.name == op.Name {
				return &endpoint{kind: kindMember, member: m}
			}
		}
	}
	for _, a := range r.actions {
		if a.name == op.Name {
			return &endpoint{kind: kindAction, action: a}
		}
	}
	return &endpoint{kind: kindPlain}
}

// linkMembers points every member at its resource, once all are compiled.
func linkMembers(resources map[string]*resource) {
	for _, r := range resources {
		for _, m := range r.ext.members {
			m.res = resources[m.resource]
		}
	}
}
