package openapi

import (
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
)

// Rest is the default dialect, for a description of no provider a
// dialect knows (SPEC §13): JSON bodies, lists as the description declares
// them, ids of the schema's type, 201 creates and 204 deletes where the
// description answers so, and RFC 9457 problem+json errors. Its resources
// are the collection/item pairs whose item answers an object with an id;
// everything else is a template route answering an example of its
// response, else a sample. It is deliberately small: the description's
// own error schemas, envelopes and id fields beyond "id" are for later.
func Rest() Dialect { return restDialect{} }

type restDialect struct{}

func (restDialect) Name() string                { return "rest" }
func (restDialect) Detect(doc *openapi3.T) bool { return true }

func (restDialect) Begin(im *Importer) (Hooks, error) {
	if err := im.ov.RefuseAnchors("rest"); err != nil {
		return nil, err
	}
	return &restImport{im: im, trie: NewParamTrie()}, nil
}

// restImport is one import in the rest dialect.
type restImport struct {
	im   *Importer
	trie *ParamTrie
}

// Resources are the top-level collections with a list or a create whose
// item's read answers an object with an id property.
func (r *restImport) Resources() ([]format.Resource, error) {
	im := r.im
	byPath := ByPath(im.ops)
	items := ItemPaths(byPath)
	var out []format.Resource
	taken := map[string]bool{}
	for _, coll := range sortedKeys(items) {
		if strings.Contains(coll, "{") {
			continue
		}
		if fr, ok := r.resource(coll, items[coll], byPath, taken); ok {
			out = append(out, fr)
		}
	}
	for _, o := range im.ops {
		r.trie.Add(o.Path, false)
	}
	for _, fr := range out {
		r.trie.Add(fr.Item, true)
	}
	r.trie.Assign()
	return out, nil
}

func (r *restImport) resource(coll, item string, byPath map[string]map[string]Operation, taken map[string]bool) (format.Resource, bool) {
	im := r.im
	c, it := byPath[coll], byPath[item]
	get, hasGet := it["GET"]
	list, hasList := c["GET"]
	create, hasCreate := c["POST"]
	if !hasGet || (!hasList && !hasCreate) {
		im.report.AddUnresolved(coll, "collection without a read of its item, or without both list and create: its operations are served as templates", "high")
		return format.Resource{}, false
	}
	_, ref, mt := Success(get.Op)
	if ref == nil || ref.Value == nil || ref.Value.Properties["id"] == nil {
		im.report.AddUnresolved(coll, "the item's answer has no id property: served as templates", "medium")
		return format.Resource{}, false
	}
	name := strings.ToLower(RefName(ref))
	if name == "" {
		name = coll[strings.LastIndex(coll, "/")+1:]
	}
	if taken[name] || !format.ValidName(name) {
		im.report.AddUnresolved(coll, "no resource name of its own (its schema's is taken or not a name): served as templates", "medium")
		return format.Resource{}, false
	}
	taken[name] = true
	fr := format.Resource{Name: name, Collection: coll, Item: coll + "/{id}"}
	if id := ref.Value.Properties["id"].Value; id != nil && id.Type.Is("integer") {
		fr.IDKind = "integer"
	} else {
		// A string id is minted as a prefix and random characters; the
		// description says nothing of a prefix, so it is the name's.
		fr.IDPrefix = strings.NewReplacer(".", "_", "-", "_").Replace(name) + "_"
		im.report.AddInferred(name, "id_prefix", fr.IDPrefix, "the resource's name: the description shows no id format", 0.5)
	}
	skel, _ := im.ExampleOr(ref, mt).(map[string]any)
	if skel == nil {
		skel = map[string]any{}
	}
	// An optional property the example or sample left out is null, so
	// that a create or update may set it: the engine keeps the fields a
	// skeleton has.
	for _, k := range SortedProps(ref.Value) {
		if _, ok := skel[k]; !ok {
			skel[k] = nil
		}
	}
	fr.Skeleton = Compact(skel)
	im.Claim("GET", item, name)
	if hasList {
		if _, s, _ := Success(list.Op); s != nil && s.Value != nil && s.Value.Type.Is("array") {
			fr.List = "array"
		} else {
			im.report.AddUnresolved(coll, "the list answers no bare array: served in the dialect's list shape", "low")
		}
		im.Claim("GET", coll, name)
	} else {
		fr.Omit = append(fr.Omit, "list")
	}
	if hasCreate {
		if status, _, _ := Success(create.Op); status == 201 {
			fr.CreateStatus = 201
		}
		im.Claim("POST", coll, name)
	} else {
		fr.Omit = append(fr.Omit, "create")
	}
	for _, m := range []string{"PATCH", "POST", "PUT"} {
		if _, ok := it[m]; ok {
			fr.Update = append(fr.Update, m)
			im.Claim(m, item, name)
		}
	}
	if len(fr.Update) == 0 {
		fr.Omit = append(fr.Omit, "update")
	}
	if del, ok := it["DELETE"]; ok {
		if status, _, _ := Success(del.Op); status == 204 {
			fr.DeleteStatus = 204
		}
		im.Claim("DELETE", item, name)
	} else {
		fr.Delete = "none"
	}
	im.report.AddInferred(name, "routes", coll, "collection/item pair", 1)
	return fr, true
}

// Errors are RFC 9457 problem details.
func (r *restImport) Errors() format.Errors {
	r.im.report.AddInferred("errors", "schema", "problem+json", "the rest dialect's RFC 9457 problem details", 1)
	problem := func(status int, title, detail string) *format.Answer {
		return &format.Answer{Status: status, Body: Compact(map[string]any{"type": "about:blank", "title": title, "status": status, "detail": detail})}
	}
	return format.Errors{
		NotFound:        problem(404, "Not Found", "No such {object}: '{id}'"),
		InvalidRequest:  problem(400, "Bad Request", "{message}"),
		Idempotency:     problem(409, "Conflict", "Idempotency-Key '{id}' was used with different parameters: use a new key"),
		RateLimited:     problem(429, "Too Many Requests", "Too many requests: slow down"),
		UnexpectedState: problem(409, "Conflict", "This {object} is {status}: you cannot {action} it"),
	}
}

// Routes are template answers: an example, else a sample.
func (r *restImport) Routes(unclaimed []Operation) []format.Route {
	return r.im.TemplateRoutes(unclaimed,
		func(o Operation) (string, bool) { return r.trie.Rename(o.Path), true },
		func(_ Operation, s *openapi3.SchemaRef, mt *openapi3.MediaType) any { return r.im.ExampleOr(s, mt) })
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
