package compiled

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
)

// Nested is a resource's compiled format.Nested; nil when it has none.
type Nested struct {
	Defaults map[string]*NestedDefault // by dotted path: "recurring", "items.data[]"
	Expands  []*Expansion
}

// NestedDefault is a default object: literal fields, and computed ones
// whose value is filled when the default is used.
type NestedDefault struct {
	Object   *object.Object
	Computed []Assign
}

// Expansion is a field whose id a write replaces by the entity it names.
type Expansion struct {
	Parents      []string // path to the objects holding the field
	Field        string
	ResourceName string
	Resource     *Resource // linked once all resources are compiled
}

func compileNested(spec *format.Resource) (*Nested, error) {
	if len(spec.NestedDefaults) == 0 && len(spec.Expand) == 0 {
		return nil, nil
	}
	n := &Nested{Defaults: map[string]*NestedDefault{}}
	for _, p := range slices.Sorted(maps.Keys(spec.NestedDefaults)) {
		obj, err := object.Parse([]byte(spec.NestedDefaults[p]))
		if err != nil {
			return nil, fmt.Errorf("nested_defaults.%s: %w", p, err)
		}
		d := &NestedDefault{Object: obj}
		for i, k := range obj.Keys() {
			s, ok := obj.Values()[i].(string)
			if !ok || !strings.HasPrefix(s, "$") {
				continue
			}
			if strings.HasPrefix(s, "$$") {
				obj.Set(k, s[1:])
				continue
			}
			x, err := format.ParseExpr(s)
			if err != nil {
				return nil, fmt.Errorf("nested_defaults.%s.%s: %w", p, k, err)
			}
			d.Computed = append(d.Computed, Assign{Field: k, Expr: &x})
		}
		n.Defaults[p] = d
	}
	for _, x := range spec.Expand {
		segs, ok := format.FieldPath(x.Field)
		if !ok {
			return nil, fmt.Errorf("expand: field %q is not a field path", x.Field)
		}
		n.Expands = append(n.Expands, &Expansion{Parents: segs[:len(segs)-1], Field: segs[len(segs)-1], ResourceName: x.Resource})
	}
	return n, nil
}

// linkExpansions points every expansion at its resource.
func linkExpansions(resources map[string]*Resource) {
	for _, r := range resources {
		if r.Nested == nil {
			continue
		}
		for _, x := range r.Nested.Expands {
			x.Resource = resources[x.ResourceName]
		}
	}
}
