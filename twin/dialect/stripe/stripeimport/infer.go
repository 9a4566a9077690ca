package stripeimport

import (
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/openapi"
)

// resource is an inferred stateful resource.
type resource struct {
	name       string // the provider's object type
	schema     string // its component name
	collection string
	itemParam  string // the item path's parameter name in the spec
	ref        *openapi3.SchemaRef
	delete     string // "tombstone", "not_found", "none"
	deleted    *openapi3.SchemaRef
	actions    []string // verbs, sorted
	omit       []string // collection operations the description lacks
	listURL    string   // the list envelope's url, when not the collection
	idPrefix   string
	skeleton   map[string]any
	from       string // where the skeleton came from: fixture, example, sampler
	// object is the provider's type of new entities when it is not name
	// (a polymorphic resource is named after its schema); see nested.go.
	object string
	// nested: the collection is under a parent's item; parents are its
	// parameters. A top-level resource gains parents, and create, list and
	// read paths, from nested collections of its type.
	nested                            bool
	parents                           []string
	createPaths, listPaths, readPaths []string
	searchPaths                       []string // GET {collection}/search
}

// infer finds the resources and what serves each operation.
func (im *importer) infer() {
	byPath := map[string]map[string]*openapi3.Operation{}
	for _, o := range im.Operations() {
		if byPath[o.Path] == nil {
			byPath[o.Path] = map[string]*openapi3.Operation{}
		}
		byPath[o.Path][o.Method] = o.Op
	}
	// Candidates in a stable order: shorter collections first, so
	// /v1/refunds wins over a nested path answering the same type.
	var cands []string
	for p := range byPath {
		if !strings.Contains(p, "{") {
			cands = append(cands, p)
		}
	}
	// A collection that its own list's url names goes first: Stripe lists
	// financial connections accounts at /v1/financial_connections/accounts,
	// not at the older /v1/linked_accounts.
	own := map[string]bool{}
	for _, p := range cands {
		own[p] = listURL(byPath[p]["GET"]) == p
	}
	sort.Slice(cands, func(i, j int) bool {
		if own[cands[i]] != own[cands[j]] {
			return own[cands[i]]
		}
		ci, cj := strings.Count(cands[i], "/"), strings.Count(cands[j], "/")
		if ci != cj {
			return ci < cj
		}
		return cands[i] < cands[j]
	})
	items := openapi.ItemPaths(byPath)
	for _, coll := range cands {
		item, ok := items[coll]
		if !ok {
			continue
		}
		if r := im.resourceAt(coll, item, byPath); r != nil {
			im.resources = append(im.resources, r)
			im.byName[r.name] = r
		}
	}
	im.inferNested(byPath)
	im.collectExamples()
	for _, r := range im.resources {
		if im.Stopped() {
			return
		}
		im.prefix(r)
		im.skeleton(r)
	}
}

// resourceAt infers a resource from a collection/item pair, or returns nil
// (and reports why) when the pair is not one.
func (im *importer) resourceAt(coll, item string, byPath map[string]map[string]*openapi3.Operation) *resource {
	c, it := byPath[coll], byPath[item]
	list, create, get := c["GET"], c["POST"], it["GET"]
	if get == nil || (list == nil && create == nil) {
		im.report.AddUnresolved(coll, "collection without retrieve, or without both list and create: its operations are served as templates", "high")
		return nil
	}
	want := ""
	if list != nil {
		_, listSchema, _ := openapi.Success(list)
		_, items := isList(schemaOf(listSchema))
		want = openapi.ObjectEnum(schemaOf(items))
	}
	_, getSchema, _ := openapi.Success(get)
	ref := openapi.Pick(getSchema, want)
	name := openapi.ObjectEnum(schemaOf(ref))
	if ref == nil || name == "" || ref.Value.Properties["id"] == nil {
		im.report.AddUnresolved(coll, "the item's answer has no id and one-value object enum: served as templates", "medium")
		return nil
	}
	if _, dup := im.byName[name]; dup {
		im.report.AddUnresolved(coll, "another collection already serves "+name+" statefully: served as templates", "high")
		return nil
	}
	r := &resource{name: name, object: name, schema: openapi.RefName(ref), collection: coll, itemParam: item[len(coll)+2 : len(item)-1], ref: ref, delete: "none"}
	r.omit = omitted(list, create, it["POST"])
	if u := listURL(list); u != "" && u != coll {
		r.listURL = u
	}
	im.claimPresent(r, "GET", coll, list)
	im.claimPresent(r, "POST", coll, create)
	im.claim("GET", item, r)
	im.claimPresent(r, "POST", item, it["POST"])
	im.claimDelete(r, item, it["DELETE"])
	if byPath[coll+"/search"]["GET"] != nil {
		// Stripe's search of the collection (query=...): the dialect
		// reads the query, the engine lists what it searches.
		r.searchPaths = []string{coll + "/search"}
		im.claim("GET", coll+"/search", r)
	}
	r.actions = im.itemActions(r, item, name, byPath)
	return r
}

// claimDelete claims an item's DELETE, if the description has one: a
// tombstone when it answers a deleted_* schema, else not_found.
func (im *importer) claimDelete(r *resource, item string, del *openapi3.Operation) {
	if del == nil {
		return
	}
	_, ds, _ := openapi.Success(del)
	if d := openapi.DeletedBranch(ds); d != nil {
		r.delete, r.deleted = "tombstone", d
	} else {
		r.delete = "not_found"
	}
	im.claim("DELETE", item, r)
}

func (im *importer) claim(method, path string, r *resource) {
	im.Claim(method, path, r.name)
}

// listURL is the literal path a list operation's envelope names in its
// url pattern ("^/v1/refunds"), or "".
func listURL(list *openapi3.Operation) string {
	if list == nil {
		return ""
	}
	_, s, _ := openapi.Success(list)
	if s == nil || s.Value == nil {
		return ""
	}
	if u := s.Value.Properties["url"]; u != nil && u.Value != nil {
		if m := literalPattern.FindStringSubmatch(u.Value.Pattern); m != nil {
			return m[1]
		}
	}
	return ""
}

// claimPresent claims an operation the description has.
func (im *importer) claimPresent(r *resource, method, path string, op *openapi3.Operation) {
	if op != nil {
		im.claim(method, path, r)
	}
}

// omitted lists the collection operations the description does not have,
// so the twin declares them absent (format.Resource.Omit) rather than
// answering routes the provider has not got.
func omitted(list, create, update *openapi3.Operation) []string {
	var out []string
	for _, o := range []struct {
		op   *openapi3.Operation
		name string
	}{{list, "list"}, {create, "create"}, {update, "update"}} {
		if o.op == nil {
			out = append(out, o.name)
		}
	}
	return out
}

func schemaOf(r *openapi3.SchemaRef) *openapi3.Schema {
	if r == nil {
		return nil
	}
	return r.Value
}
