package stripeimport

import (
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/openapi"
)

// Expandable fields (format.Nested.Expandable): where an answer of a
// resource may be expanded by expand[], and what type each place holds.
// Stripe's description marks an id that expands with x-expansionResources
// (its property an anyOf of a string and the object's schema); the
// objects and lists of objects of a resource's type on the way are
// recorded too, so that expand[]=items.data.price.product follows a
// subscription's items into their own fields. Plain nested objects
// (an invoice's parent) are followed inline, to Stripe's limit of four
// levels of a path.

// maxExpandDepth is the most segments an expansion path has: Stripe
// refuses more than four levels.
const maxExpandDepth = 4

// expandable are r's expandable fields, nil when it has none.
func (im *importer) expandable(r *resource) map[string]string {
	if r.ref == nil || r.ref.Value == nil {
		return nil
	}
	out := map[string]string{}
	im.expandableIn(r.ref.Value, "", 1, out)
	if len(out) == 0 {
		return nil
	}
	return out
}

// expandableIn records the expandable fields of s's properties, whose
// paths start with prefix and are depth segments long.
func (im *importer) expandableIn(s *openapi3.Schema, prefix string, depth int, out map[string]string) {
	if depth > maxExpandDepth {
		return
	}
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		if p == nil || p.Value == nil {
			continue
		}
		path := prefix + name
		if t := expansionType(p); t != "" {
			out[path] = t
			continue
		}
		if p.Value.Items != nil {
			if t := expansionType(p.Value.Items); t != "" {
				out[path] = t // a list of ids, each expanded (discounts)
			}
			continue
		}
		obj := objectBranch(p)
		if obj == nil {
			continue
		}
		if kind, items := isList(obj); kind == "list" && items != nil && items.Value != nil {
			if t := openapi.ObjectEnum(items.Value); t != "" && im.byName[t] != nil {
				out[path+".data"] = t
			} else if depth+1 < maxExpandDepth {
				im.expandableIn(items.Value, path+".data.", depth+2, out)
			}
			continue
		}
		if t := openapi.ObjectEnum(obj); t != "" && im.byName[t] != nil {
			out[path] = t // an object of a resource's type: its own fields follow
			continue
		}
		im.expandableIn(obj, path+".", depth+1, out)
	}
}

// expansionType is the object type an expandable id names (the first of
// its x-expansionResources that is no tombstone), or "".
func expansionType(p *openapi3.SchemaRef) string {
	if _, ok := p.Value.Extensions["x-expansionResources"]; !ok {
		return ""
	}
	for _, b := range openapi.Branches(p) {
		if b.Value == nil || openapi.IsDeleted(b.Value) {
			continue
		}
		if t := openapi.ObjectEnum(b.Value); t != "" {
			return t
		}
	}
	return ""
}

// objectBranch is the object schema a property holds, through a nullable
// anyOf of one reference; nil when it holds no object with properties.
func objectBranch(p *openapi3.SchemaRef) *openapi3.Schema {
	bs := openapi.Branches(p)
	if len(bs) != 1 || bs[0].Value == nil || len(bs[0].Value.Properties) == 0 {
		return nil
	}
	return bs[0].Value
}
