package engine

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/wraithdev/wraith/twin/format"
)

// ext is what a resource declares through format.Keys: how it is
// addressed, scoped, numbered, listed and answered when it is not
// Stripe-shaped. A resource that declares none of it has a nil ext and is
// served by the Stripe-shaped code alone.
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

func compileExt(spec *format.Resource) (*ext, error) {
	k := &spec.Keys
	if !spec.Keyed() && k.List != "array" && k.CreateStatus == 0 && k.DeleteStatus == 0 && len(k.Required) == 0 &&
		k.TimeFormat == "" && len(k.Computed) == 0 && len(k.UpdateRules) == 0 && len(k.Members) == 0 && k.IDKind == "" &&
		len(k.CreatePaths) == 0 && len(k.ListPaths) == 0 && len(k.ReadPaths) == 0 && len(k.ListDefaults) == 0 {
		return nil, nil
	}
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
	}
	if x.idKind == "" {
		x.idKind = "string"
	}
	if x.createStatus == 0 {
		x.createStatus = http.StatusOK
	}
	if x.deleteStatus == 0 {
		x.deleteStatus = http.StatusOK
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
		if r.ext == nil {
			continue
		}
		for _, m := range r.ext.members {
			m.res = resources[m.resource]
		}
	}
}
