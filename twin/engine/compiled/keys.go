package compiled

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/format"
)

// Keys is what a resource declares through format.Keys: how it is
// addressed, scoped, numbered, listed and answered. What a resource
// leaves out is its dialect's default (dialect.Defaults).
type Keys struct {
	Keyed          bool              // stored under an address built from its path, not its id
	KeyField       string            // the field the item path's last parameter names
	KeyParam       string            // that parameter's name
	KeyPrefix      string            // what the field has before the path's value ("refs/")
	AddrParams     []string          // the item path's other parameters, in order
	IDKind         string            // "string", "digits", "integer" or "none"
	Parents        []string          // path parameters that scope it (a repository's owner and repo)
	ParentDefaults map[string]string // a parent's value when the path names none
	Counter        string            // the counter its key is numbered from, per scope ("" for none)
	Array          bool              // lists are bare arrays paged by Link headers
	Envelope       *dialect.Envelope // list = "envelope": the object a page is answered in
	ItemEnvelope   string            // the member an entity is answered and sent in ("" for none)
	CreateBody     map[string]any    // a create's stub answer (create_body), nil: the entity
	ListDefaults   []Filter
	CreateStatus   int
	DeleteStatus   int
	Required       []string   // parameters a create must send
	Class          string     // the name a validation error gives it
	RFC3339        bool       // times are RFC 3339 text, not unix seconds
	Computed       []Computed // fields set on every write
	UpdateRules    []Rule
	Members        []*Member // sub-collections kept in its fields
	Typed          bool      // its objects name their type in "object" (dialect.Defaults.Typed)
}

// Computed is a field set on every write from a template.
type Computed struct {
	Path     []string // "owner.login" is [owner login]
	Template string
	// Parent is the parent the template is, whole ("{customer}"), or "":
	// a path that names no value of it leaves the field as it was.
	Parent string
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
		Envelope:       envelopeOf(k),
		ItemEnvelope:   k.ItemEnvelope,
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
		c := Computed{Path: strings.Split(f, "."), Template: k.Computed[f]}
		if p, ok := strings.CutPrefix(c.Template, "{"); ok && strings.HasSuffix(p, "}") && slices.Contains(k.Parents, p[:len(p)-1]) {
			c.Parent = p[:len(p)-1]
		}
		x.Computed = append(x.Computed, c)
	}
	var err error
	if k.CreateBody != "" {
		d := json.NewDecoder(strings.NewReader(k.CreateBody))
		d.UseNumber()
		if err := d.Decode(&x.CreateBody); err != nil {
			return nil, fmt.Errorf("create_body: %w", err)
		}
	}
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
	case "search":
		return &Endpoint{Kind: KindList, Search: true}
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

// Filter keeps the entities of a list whose field has the value want
// (a resource's list_defaults, and a list request's field parameters).
type Filter struct {
	Field string
	Want  string
	// Or are more values a field may have to match: a list filter
	// (status=a&status=b) matches any of its values.
	Or []string
}

// envelopeOf is an envelope list's object (list_key in list_body), nil
// for another list.
func envelopeOf(k *format.Keys) *dialect.Envelope {
	if k.List != "envelope" {
		return nil
	}
	return dialect.NewEnvelope(k.ListKey, k.ListBody)
}
