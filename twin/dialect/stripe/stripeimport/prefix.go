package stripeimport

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/wraithdev/wraith/twin/openapi"
)

// generatedID is an id a provider generated: lower-case words joined by
// "_", then at least 10 letters and digits ("cus_NffrFeUfNV2Hib",
// "pi_3MtwBw..."). Placeholders (obj_123) and natural keys (coupon codes,
// "US") do not match, so they do not vote.
var generatedID = regexp.MustCompile(`^((?:[a-z][a-z0-9]*_)+)[A-Za-z0-9]{10,}$`)

// collectExamples gathers the objects of the spec's response examples.
func (im *importer) collectExamples() {
	for _, o := range im.Operations() {
		_, s, mt := openapi.Success(o.Op)
		if mt != nil && mt.Example != nil {
			im.examples = append(im.examples, openapi.Normalize(mt.Example))
		}
		if mt != nil {
			for _, k := range slices.Sorted(maps.Keys(mt.Examples)) {
				if ex := mt.Examples[k]; ex != nil && ex.Value != nil && ex.Value.Value != nil {
					im.examples = append(im.examples, openapi.Normalize(ex.Value.Value))
				}
			}
		}
		_ = s
	}
	for _, name := range slices.Sorted(maps.Keys(im.doc.Components.Schemas)) {
		if s := im.doc.Components.Schemas[name]; s != nil && s.Value != nil && s.Value.Example != nil {
			im.examples = append(im.examples, openapi.Normalize(s.Value.Example))
		}
	}
}

// prefix sets r's id prefix by a majority vote over every object of r's
// type in the fixtures and examples; ties go to the smaller prefix.
func (im *importer) prefix(r *resource) {
	votes := map[string]int{}
	total := 0
	visit := func(v any) {
		walkObjects(v, func(o map[string]any) {
			obj, _ := o["object"].(string)
			id, _ := o["id"].(string)
			if obj != r.object || id == "" {
				return
			}
			total++
			if m := generatedID.FindStringSubmatch(id); m != nil {
				votes[m[1]]++
			}
		})
	}
	for _, k := range im.fx.keys() {
		visit(im.fx[k])
	}
	for _, ex := range im.examples {
		visit(ex)
	}
	best, n := "", 0
	for _, p := range slices.Sorted(maps.Keys(votes)) {
		if votes[p] > n {
			best, n = p, votes[p]
		}
	}
	if ov := im.ov.Resource(r.name); ov != nil && ov.IDPrefix != "" {
		im.report.AddInferred(r.name, "id_prefix", ov.IDPrefix, "overlay", 1)
		r.idPrefix = ov.IDPrefix
		return
	}
	if best == "" {
		r.idPrefix = fallbackPrefix(r.name)
		reason := "no id of this type in the fixtures or examples"
		if total > 0 {
			reason = fmt.Sprintf("%d ids seen, none provider-generated (placeholders or natural keys)", total)
		}
		if slices.Contains(r.omit, "create") {
			// The twin never makes an id of this type: the prefix is moot.
			im.report.AddInferred(r.name, "id_prefix", r.idPrefix, "no create: ids come from fixtures only ("+reason+")", 1)
			return
		}
		im.report.AddUnresolved(r.name, "id prefix: "+reason+"; generated ids use "+r.idPrefix, "low")
		return
	}
	r.idPrefix = best
	im.report.AddInferred(r.name, "id_prefix", best, fmt.Sprintf("vote %d of %d", n, total), float64(n)/float64(total))
}

// fallbackPrefix is a prefix made from the type name: "billing.alert" ->
// "billing_alert_".
func fallbackPrefix(name string) string {
	return strings.NewReplacer(".", "_", "-", "_").Replace(name) + "_"
}

// walkObjects calls f on every JSON object inside v, depth first, keys in
// order.
func walkObjects(v any, f func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		f(t)
		for _, k := range slices.Sorted(maps.Keys(t)) {
			walkObjects(t[k], f)
		}
	case []any:
		for _, e := range t {
			walkObjects(e, f)
		}
	}
}
