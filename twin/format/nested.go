package format

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Nested are the optional fields that complete the objects a resource
// holds inside its fields, where a client sends only part of them: a
// price created with recurring[interval]=month answers recurring with
// Stripe's defaults for the rest, and a subscription created with
// items[0][price]=price_X answers each item as a subscription_item whose
// price is the price object. docs/twin-format.md describes both.
type Nested struct {
	// NestedDefaults maps a field path to a JSON object that request
	// parameters are merged over. "recurring": a parameter that sets the
	// field recurring while it holds no object. "items.data[]": each
	// element a parameter writes into the array items.data (a list
	// envelope's data). String values "$now", "$now+SECS", "$.field" (a
	// field of the resource's object), "$id:PREFIX" (a new id from the
	// session's generator) and "$null" are computed when the default
	// applies; "$$..." is a literal "$...".
	NestedDefaults map[string]string `toml:"nested_defaults,omitzero"`
	// Expand replaces ids by the entities they name.
	Expand []Expand `toml:"expand,omitzero"`
	// Expandable are the fields an answer's expansion may replace when a
	// request asks for it (Stripe's expand[]), as dotted paths from the
	// resource's object ("customer", "lines.data", "parent.quote_details.quote"),
	// each mapped to the object type it holds: the id of an entity of
	// that type, or the object itself (a list's elements, for a path
	// ending in "data"). Nothing is stored expanded; see
	// docs/twin-format.md.
	Expandable map[string]string `toml:"expandable,omitzero"`
}

// Expand is a reference that the answer holds as the entity it names
// (Stripe's subscription item answers its price as the price object):
// after a create, update or action, a string at Field is replaced by the
// session's entity of Resource with that id.
type Expand struct {
	// Field is a dotted path; a segment ending in "[]" is an array whose
	// every element is followed ("items.data[].price").
	Field string `toml:"field"`
	// Resource is the referenced resource's name; it must be declared and
	// addressed by id (no key, no parents).
	Resource string `toml:"resource"`
}

// FieldPath splits a nested field path into its segments; a segment
// ending in "[]" names an array followed element by element. It reports
// false for an empty path or an empty segment.
func FieldPath(p string) ([]string, bool) {
	if p == "" {
		return nil, false
	}
	segs := strings.Split(p, ".")
	for _, s := range segs {
		name := strings.TrimSuffix(s, "[]")
		if name == "" || strings.ContainsAny(name, "[]{}$ ") {
			return nil, false
		}
	}
	return segs, true
}

// validateNested checks every resource's nested defaults and expansions,
// once all resources are known.
func validateNested(resources []Resource, file string, probs *Problems) {
	byName := map[string]*Resource{}
	for i := range resources {
		byName[resources[i].Name] = &resources[i]
	}
	for i := range resources {
		r := &resources[i]
		at := fmt.Sprintf("%s: resources[%d] (%s)", file, i, r.Name)
		for _, p := range slices.Sorted(maps.Keys(r.NestedDefaults)) {
			if _, ok := FieldPath(p); !ok {
				probs.addf("%s: nested_defaults.%q: want a dotted field path such as \"recurring\" or \"items.data[]\"", at, p)
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(r.NestedDefaults[p]), &obj); err != nil || obj == nil {
				probs.addf("%s: nested_defaults.%q: want a JSON object (the default the parameters merge over)", at, p)
				continue
			}
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				s, ok := obj[k].(string)
				if !ok || !strings.HasPrefix(s, "$") || strings.HasPrefix(s, "$$") {
					continue
				}
				if x, err := ParseExpr(s); err != nil {
					probs.addf("%s: nested_defaults.%q.%s: %v", at, p, k, err)
				} else if x.Text {
					probs.addf("%s: nested_defaults.%q.%s: %q: $text.field is for rules; a default copies a field with $.field", at, p, k, s)
				}
			}
		}
		for _, p := range slices.Sorted(maps.Keys(r.Expandable)) {
			if segs, ok := FieldPath(p); !ok || strings.Contains(p, "[]") || len(segs) == 0 {
				probs.addf("%s: expandable.%q: want a dotted field path such as \"customer\" or \"lines.data\"", at, p)
			}
			if r.Expandable[p] == "" {
				probs.addf("%s: expandable.%q: want the object type the field holds, such as \"customer\"", at, p)
			}
		}
		for j, x := range r.Expand {
			xat := fmt.Sprintf("%s expand[%d]", at, j)
			if segs, ok := FieldPath(x.Field); !ok || strings.HasSuffix(segs[len(segs)-1], "[]") {
				probs.addf("%s: field %q: want a dotted path to a string field, such as \"items.data[].price\"", xat, x.Field)
			}
			switch ref := byName[x.Resource]; {
			case ref == nil:
				probs.addf("%s: resource %q is not declared", xat, x.Resource)
			case ref.Keyed():
				probs.addf("%s: resource %q is addressed by key and parents, not by id: only resources addressed by id expand", xat, x.Resource)
			}
		}
	}
}
