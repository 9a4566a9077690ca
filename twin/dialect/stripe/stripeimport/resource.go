package stripeimport

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// manifestResource is r as twin.toml declares it, the overlay merged in.
func (im *importer) manifestResource(r *resource) format.Resource {
	fr := format.Resource{
		Name:       r.name,
		Collection: r.collection,
		Item:       r.collection + "/{id}",
		IDPrefix:   r.idPrefix,
		Skeleton:   openapi.Compact(r.skeleton),
		Delete:     r.delete,
		Omit:       r.omit,
		ListURL:    r.listURL,
	}
	im.nestedFields(r, &fr)
	fr.Computed = im.listURLs(r, fr.Item)
	for f, tmpl := range parentFields(r) {
		if fr.Computed == nil {
			fr.Computed = map[string]string{}
		}
		fr.Computed[f] = tmpl
	}
	fr.Expandable = im.expandable(r)
	if _, ok := r.skeleton["created"].(json.Number); ok {
		fr.Timestamps = []string{"created"}
	}
	for _, f := range []string{"id", "object", "created", "livemode"} {
		if _, ok := r.skeleton[f]; ok {
			fr.Immutable = append(fr.Immutable, f)
		}
	}
	if r.delete == "tombstone" {
		body, _ := im.Sample(r.deleted).(map[string]any)
		if body == nil {
			body = map[string]any{}
		}
		body["id"], body["deleted"] = "{id}", true
		if o := openapi.ObjectEnum(r.deleted.Value); o != "" {
			body["object"] = o
		}
		fr.DeletedBody = openapi.Compact(body)
	}
	ov := im.ov.Resource(r.name)
	overridden := map[string]*format.Action{}
	if ov != nil {
		for i := range ov.Actions {
			overridden[ov.Actions[i].Name] = &ov.Actions[i]
		}
	}
	for _, verb := range r.actions {
		a := format.Action{Name: verb}
		if o := overridden[verb]; o != nil {
			a = *o
			delete(overridden, verb)
		}
		fr.Actions = append(fr.Actions, a)
	}
	im.report.AddInferred(r.name, "routes", r.collection+" "+strings.Join(r.actions, ","), "collection/item pair", 1)
	if ov == nil {
		im.declareEvents(&fr)
		return fr
	}
	for _, name := range slices.Sorted(maps.Keys(overridden)) {
		im.report.AddUnresolved(r.name, "overlay action "+name+" has no POST "+r.collection+"/{id}/"+name+" in the description: not served", "high")
	}
	fr.Create = ov.Create
	if ov.Delete != "" {
		fr.Delete = ov.Delete
	}
	fr.OnDelete = ov.OnDelete
	fr.Immutable = openapi.MergeSorted(fr.Immutable, ov.Immutable)
	fr.NestedDefaults, fr.Expand = ov.NestedDefaults, ov.Expand
	im.declareEvents(&fr)
	return fr
}

// baseline is fixtures/baseline.json: the fixtures of the stateful
// resources, one entity each, or nil.
func (im *importer) baseline() []byte {
	var ents []json.RawMessage
	taken := map[string]bool{}
	for _, r := range im.resources {
		if r.nested {
			continue
		}
		o, from := im.instance(r.ref, r.name)
		if from != "fixture" {
			continue
		}
		id, _ := o["id"].(string)
		if id == "" || o["object"] != r.name {
			continue
		}
		if taken[id] {
			// A session's world holds one entity per id; the description's
			// fixtures share placeholders (obj_123) across types, and a
			// resource without create is only ever read at its fixture.
			o["id"] = r.idPrefix + "baseline"
			im.report.AddInferred(r.name, "fixture_id", r.idPrefix+"baseline", "the fixture's id "+id+" is another type's too", 1)
		}
		taken[o["id"].(string)] = true
		ents = append(ents, json.RawMessage(openapi.Compact(o)))
	}
	if len(ents) == 0 {
		return nil
	}
	b, _ := json.MarshalIndent(format.FixtureSet{Format: format.Version, Description: "one object of each stateful resource, from the description's fixtures", Entities: ents}, "", " ")
	return append(b, '\n')
}

// listURLs are the urls of the lists an entity of r holds, where the
// description lists them at a path of the item (an application fee's
// refunds at /v1/application_fees/{id}/refunds): Stripe answers each list
// with the url its client pages and creates at (fee.refunds.create(...)).
// parentFields are the fields of r that hold a parent the path names: a
// customer's tax id says its customer, a fee refund its fee, as Stripe
// answers them, whether it was created, read or updated under that
// parent. Stripe names the path parameter after the field, and the field
// holds the parent's id (a string, or an expandable one). Where a path
// names no parent (a tax id read at /v1/tax_ids/{id}) the field is left
// as it was (format: a computed field of one parent only).
func parentFields(r *resource) map[string]string {
	if r.ref == nil || r.ref.Value == nil {
		return nil
	}
	var out map[string]string
	for _, p := range r.parents {
		if !holdsID(r.ref.Value.Properties[p]) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[p] = "{" + p + "}"
	}
	return out
}

// holdsID reports whether a field's schema is a string or has one among
// its branches (an expandable reference).
func holdsID(s *openapi3.SchemaRef) bool {
	for _, b := range openapi.Branches(s) {
		if b.Value != nil && b.Value.Type.Is("string") {
			return true
		}
	}
	return false
}

func (im *importer) listURLs(r *resource, item string) map[string]string {
	if r.ref == nil || r.ref.Value == nil {
		return nil
	}
	var out map[string]string
	for _, name := range sortedKeys(r.ref.Value.Properties) {
		p := r.ref.Value.Properties[name]
		if kind, _ := isList(schemaOf(p)); kind != "list" {
			continue
		}
		path := r.collection + "/{" + r.itemParam + "}/" + name
		if ops := im.doc.Paths.Value(path); ops == nil || ops.Get == nil {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name+".url"] = item + "/" + name
	}
	return out
}
