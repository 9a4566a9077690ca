package openapi

import (
	"encoding/json"
	"regexp"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

// A skeleton is the object a new entity starts from (twin.toml's
// skeleton): the engine copies it, sets the entity's ids and timestamps,
// then what the request sent, then the create rules. SPEC §13 says a new
// entity takes only the request, the schema's defaults and its own ids,
// so a skeleton is built from the answer's schema alone. A fixture or an
// example is another object's values (stripe-mock's customer has a
// discount, its payment intent a transfer destination, GitHub's comment
// example was written by octocat), and copying one into every new entity
// makes the twin answer things the request never said.

// Skeleton is a new entity's starting object, built from the schema of
// the resource's read answer: every property the schema lists (through
// allOf) but the write-only ones, each null where the schema allows null,
// else the schema's default, else its type's empty value (see Empty).
// Every property is present so that a create or update can set it: the
// engine keeps the fields a skeleton has. The result is within the
// import's sampling budgets; past one, it is empty and the import fails.
func (im *Importer) Skeleton(ref *openapi3.SchemaRef) map[string]any {
	return im.sp.skeleton(ref)
}

// Empty is the value a new entity holds where neither the request nor
// the provider set one: null when the schema allows it, else the
// schema's default, else its first enum value (the overlay's create
// rules or skeleton_patch set the one the provider starts with when it is
// another), else an object of its required properties, each empty in
// turn (a list envelope's are its object, [] data, has_more false and
// url), [], false, 0 or "". No example is read.
func (im *Importer) Empty(ref *openapi3.SchemaRef) any {
	return im.sp.empty(ref)
}

// WithCreateDefaults sets, in a skeleton, each property a create's
// request body declares a default for (GitHub's repository create:
// has_issues, allow_merge_commit... default true) to that default, where
// the skeleton has the property and its answer schema takes the value: a
// create that leaves the parameter out gets what the provider gives it.
// ref is the answer's schema.
func (im *Importer) WithCreateDefaults(skel map[string]any, ref *openapi3.SchemaRef, create *openapi3.Operation) {
	if create == nil || create.RequestBody == nil || create.RequestBody.Value == nil || ref == nil || ref.Value == nil {
		return
	}
	mt := JSONMedia(create.RequestBody.Value.Content)
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return
	}
	answer, _ := mergedProps(ref.Value, 0)
	body := mt.Schema.Value.Properties
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, a := body[k], answer[k]
		if _, ok := skel[k]; !ok || p == nil || p.Value == nil || p.Value.Default == nil || a == nil || a.Value == nil {
			continue
		}
		v := Normalize(p.Value.Default)
		if a.Value.VisitJSON(p.Value.Default) == nil {
			skel[k] = v
		}
	}
}

func (sp *sampler) skeleton(ref *openapi3.SchemaRef) map[string]any {
	out := map[string]any{}
	if sp.err != nil || ref == nil || ref.Value == nil {
		return out
	}
	sp.nodes, sp.bytes, sp.root = 0, 0, ref
	props, _ := mergedProps(ref.Value, 0)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := props[k]
		if p == nil || p.Value == nil || p.Value.WriteOnly {
			// Sent, never answered: an answer must not hold it.
			continue
		}
		if !sp.count(0, len(k), ref) {
			return map[string]any{}
		}
		out[k] = sp.blank(p, 1)
	}
	if sp.err != nil {
		return map[string]any{}
	}
	return out
}

func (sp *sampler) empty(ref *openapi3.SchemaRef) any {
	if sp.err != nil {
		return nil
	}
	sp.nodes, sp.bytes, sp.root = 0, 0, ref
	v := sp.blank(ref, 0)
	if sp.err != nil {
		return nil
	}
	return v
}

// blank is Empty at depth.
func (sp *sampler) blank(ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > maxSampleDepth || sp.err != nil {
		return nil
	}
	s := ref.Value
	switch {
	case Nullable(s):
		sp.count(1, 0, ref)
		return nil
	case s.Default != nil:
		return sp.copied(s.Default, ref)
	case len(s.Enum) > 0:
		return sp.copied(s.Enum[0], ref)
	}
	if v, ok := sp.composed(ref, depth, sp.blank); ok {
		return v
	}
	t := s.Type
	if t == nil || t.Is("object") || (t.Permits("object") && len(s.Properties) > 0) {
		if !sp.count(1, 0, ref) {
			return nil
		}
		out := map[string]any{}
		req := append([]string(nil), s.Required...)
		sort.Strings(req)
		for _, k := range req {
			if p := s.Properties[k]; p != nil && p.Value != nil && !p.Value.WriteOnly {
				if !sp.count(0, len(k), ref) {
					return nil
				}
				out[k] = sp.blank(p, depth+1)
			}
		}
		return out
	}
	if !sp.count(1, 0, ref) {
		return nil
	}
	switch {
	case t.Is("array"):
		return []any{}
	case t.Is("string"):
		// A pattern "" does not match is the provider's fixed text
		// (a list's url: ^/v1/financial_connections/accounts): its
		// simplest match is that text.
		if s.Pattern != "" {
			if m, ok := patternMatch(s.Pattern); ok && !matches(s.Pattern, "") {
				return m
			}
		}
		if s.Format == "decimal" {
			// A decimal written as a string is a number to its clients
			// (stripe-go reads quantity_decimal with ,string): "" is
			// none, "0" the empty one.
			return "0"
		}
		return ""
	case t.Is("integer"), t.Is("number"):
		return json.Number("0")
	case t.Is("boolean"):
		return false
	}
	return nil
}

// matches reports whether pattern matches v; a pattern RE2 cannot parse
// matches nothing.
func matches(pattern, v string) bool {
	ok, err := regexp.MatchString(pattern, v)
	return err == nil && ok
}
