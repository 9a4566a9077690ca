package stripeimport

import (
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// Nested collections: a collection under a parent's item
// (/v1/customers/{customer}/tax_ids) with its own create and an item path
// collection/{param} that reads it. Its entities belong to the parent:
// they are created, listed and read only under it (format.Keys: parents).
//
//   - When the type has no top-level resource (an account's persons, a
//     customer's cards), the nested collection is the resource: its paths
//     keep the description's parameter names, and a second collection
//     answering the same type under the same parent (/people beside
//     /persons) adds its create, list and read paths to it.
//   - When the type is a top-level resource and the nested item reads
//     {id} as its item does (tax_id, source), the nested
//     paths are that resource's create_paths, list_paths and read_paths,
//     scoped by the parent. Stripe's tax ids and sources are one object
//     type wherever they were created, so a customer's tax id is also read
//     at /v1/tax_ids/{id}; under another customer it is absent.
//   - A polymorphic answer takes the branch the collection is named after
//     (a customer's sources: source); without one (an account's external
//     accounts: bank_account or card) the resource is named after its
//     schema (external_account) and new entities are the first branch.
//
// A charge's refunds and a customer's subscriptions read
// {refund} and {subscription_exposed_id}: they stay templates, so the
// create rules of refunds and subscriptions keep their one path.
//
// Only the item's read, update and delete and its actions are stateful;
// an alias's update and delete stay templates.
func (im *importer) inferNested(byPath map[string]map[string]*openapi3.Operation) {
	items := openapi.ItemPaths(byPath)
	// A collection is named as its item names it; described is the
	// description's own path of it: the same, or, where the description
	// names the parent otherwise in the collection than in its item
	// (/v1/application_fees/{id}/refunds beside
	// /v1/application_fees/{fee}/refunds/{id}), the description's.
	described := map[string]string{}
	for coll := range items {
		described[coll] = coll
	}
	for coll, r := range renamedItems(byPath, items) {
		items[coll], described[coll] = r.item, r.described
	}
	var cands []string
	for coll := range items {
		segs := strings.Split(coll, "/")
		if strings.Contains(coll, "{") && !openapi.IsParam(segs[len(segs)-1]) && byPath[described[coll]]["POST"] != nil {
			cands = append(cands, coll)
		}
	}
	// Collections with their own list first (persons before people, external
	// accounts before the create-only bank_accounts), then by path.
	sort.Slice(cands, func(i, j int) bool {
		li, lj := byPath[described[cands[i]]]["GET"] != nil, byPath[described[cands[j]]]["GET"] != nil
		if li != lj {
			return li
		}
		return cands[i] < cands[j]
	})
	for _, coll := range cands {
		item, desc := items[coll], described[coll]
		get := byPath[item]["GET"]
		if get == nil {
			continue
		}
		_, getSchema, _ := openapi.Success(get)
		ref := openapi.Pick(getSchema, namedBranch(getSchema, coll))
		object := openapi.ObjectEnum(schemaOf(ref))
		if ref == nil || object == "" || ref.Value.Properties["id"] == nil {
			im.report.AddUnresolved(coll, "the nested item's answer has no id and one-value object enum: served as templates", "medium")
			continue
		}
		name := object
		if len(openapi.Branches(getSchema)) > 1 && namedBranch(getSchema, coll) == "" {
			if name = openapi.RefName(getSchema); name == "" {
				im.report.AddUnresolved(coll, "a polymorphic answer without a schema name: served as templates", "medium")
				continue
			}
		}
		parents := pathParams(coll)
		key := item[len(coll)+2 : len(item)-1]
		if r := im.byName[name]; r != nil {
			if desc != coll {
				im.report.AddUnresolved(coll, "another collection already serves "+r.name+" statefully: served as templates", "high")
				continue
			}
			im.nestedAlias(r, coll, item, key, parents, byPath)
			continue
		}
		r := &resource{name: name, object: object, schema: openapi.RefName(ref), collection: coll, itemParam: key, ref: ref, delete: "none", parents: parents, nested: true}
		list, create := byPath[desc]["GET"], byPath[desc]["POST"]
		r.omit = omitted(list, create, byPath[item]["POST"])
		if desc != coll {
			im.report.AddInferred(name, "collection", coll, "the description's "+desc+", its parent named as its item "+item+" names it", 1)
		}
		im.claimPresent(r, "GET", desc, list)
		im.claimPresent(r, "POST", desc, create)
		im.claim("GET", item, r)
		im.claimPresent(r, "POST", item, byPath[item]["POST"])
		im.claimDelete(r, item, byPath[item]["DELETE"])
		r.actions = im.itemActions(r, item, object, byPath)
		im.resources = append(im.resources, r)
		im.byName[r.name] = r
	}
	sort.Slice(im.resources, func(i, j int) bool { return im.resources[i].name < im.resources[j].name })
}

// nestedAlias adds a nested collection's create, list and read to r when
// its parents fit r's: the same parents for a nested resource, any one
// parent for a top-level resource (which gains it).
func (im *importer) nestedAlias(r *resource, coll, item, key string, parents []string, byPath map[string]map[string]*openapi3.Operation) {
	fits := false
	switch {
	case r.nested:
		fits = strings.Join(parents, ",") == strings.Join(r.parents, ",") && key == r.itemParam
	case len(parents) == 1 && key == "id" && (len(r.parents) == 0 || r.parents[0] == parents[0]):
		fits = true
		r.parents = parents
		key = "id" // a top-level resource's item reads {id}
	}
	if !fits {
		im.report.AddUnresolved(coll, "another collection already serves "+r.name+" statefully, under other parents or another item parameter: served as templates", "high")
		return
	}
	if byPath[coll]["POST"] != nil {
		r.createPaths = append(r.createPaths, coll)
		im.claim("POST", coll, r)
	}
	if byPath[coll]["GET"] != nil {
		r.listPaths = append(r.listPaths, coll)
		im.claim("GET", coll, r)
	}
	r.readPaths = append(r.readPaths, coll+"/{"+key+"}")
	im.claim("GET", item, r)
	im.report.AddInferred(r.name, "nested_paths", coll, "a collection of "+r.name+" under {"+strings.Join(parents, "}/{")+"}", 1)
}

// itemActions are the verbs POST {item}/{verb} answering the resource's
// type, claimed for it.
func (im *importer) itemActions(r *resource, item, object string, byPath map[string]map[string]*openapi3.Operation) []string {
	var out []string
	for p, ops := range byPath {
		verb, ok := strings.CutPrefix(p, item+"/")
		if !ok || strings.ContainsAny(verb, "/{") || ops["POST"] == nil || len(ops) != 1 {
			continue
		}
		_, as, _ := openapi.Success(ops["POST"])
		if openapi.ObjectEnum(schemaOf(openapi.Pick(as, object))) != object {
			continue
		}
		out = append(out, verb)
		im.claim("POST", p, r)
	}
	sort.Strings(out)
	return out
}

// renamed is an item path whose collection the description has only
// under other parameter names, and that collection's path.
type renamed struct{ item, described string }

// renamedItems are the item paths whose collection the description names
// its parameters otherwise in (/v1/application_fees/{fee}/refunds/{id},
// whose collection it writes /v1/application_fees/{id}/refunds), by
// their collection under the item's names. A collection the description
// has as its item names it is left to ItemPaths.
func renamedItems(byPath map[string]map[string]*openapi3.Operation, items map[string]string) map[string]renamed {
	byShape := map[string]string{}
	for p := range byPath {
		byShape[shape(p)] = p
	}
	out := map[string]renamed{}
	for p := range byPath {
		i := strings.LastIndexByte(p, '/')
		if i <= 0 || !openapi.IsParam(p[i+1:]) {
			continue
		}
		coll := p[:i]
		desc, ok := byShape[shape(coll)]
		if _, named := byPath[coll]; named || !ok {
			continue
		}
		if _, taken := items[coll]; taken {
			continue
		}
		if prev, dup := out[coll]; !dup || p < prev.item {
			out[coll] = renamed{item: p, described: desc}
		}
	}
	return out
}

// shape is a path with its parameters' names left out: /v1/a/{}/b.
func shape(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if openapi.IsParam(s) {
			segs[i] = "{}"
		}
	}
	return strings.Join(segs, "/")
}

// pathParams are a path's parameter names, in order.
func pathParams(path string) []string {
	var out []string
	for _, s := range strings.Split(path, "/") {
		if openapi.IsParam(s) {
			out = append(out, s[1:len(s)-1])
		}
	}
	return out
}

// nestedFields writes r's parents and nested paths into its twin.toml
// entry: a nested resource's item keeps the description's parameter name;
// a top-level resource with parents lists across them at its own
// collection (parent_defaults of "").
func (im *importer) nestedFields(r *resource, fr *format.Resource) {
	if r.nested {
		fr.Item = r.collection + "/{" + r.itemParam + "}"
	}
	fr.Parents, fr.CreatePaths, fr.ListPaths, fr.ReadPaths, fr.SearchPaths = r.parents, r.createPaths, r.listPaths, r.readPaths, r.searchPaths
	if !r.nested && len(r.parents) > 0 {
		fr.ParentDefaults = map[string]string{}
		for _, p := range r.parents {
			fr.ParentDefaults[p] = ""
		}
	}
}

// namedBranch is the object type of the branch of a polymorphic answer
// that the collection's last segment names (sources: source), or "".
func namedBranch(s *openapi3.SchemaRef, coll string) string {
	bs := openapi.Branches(s)
	if len(bs) < 2 {
		return ""
	}
	last := coll[strings.LastIndexByte(coll, '/')+1:]
	for _, b := range bs {
		if o := openapi.ObjectEnum(schemaOf(b)); o != "" && o+"s" == last {
			return o
		}
	}
	return ""
}
