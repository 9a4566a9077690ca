package githubimport

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// resource infers one stateful resource from the operations its overlay
// entry anchors. What the overlay declares stays; the description fills
// the rest:
//
//   - item: the path of the read (or item_op); parents: its parameters
//     but the last; key: the field that last parameter names
//     (issue_number -> number, comment_id -> id, name -> name);
//   - collection: the create path that is the item's parent path; other
//     create and list paths become create_paths and list_paths when their
//     parameters are parents (a differently named one, /orgs/{org}/repos,
//     stays a template route);
//   - list "array" when the list answers a bare array; create_status,
//     delete_status from the answers' codes (201, 204); update from the
//     update's method; required from the create body's required fields;
//   - id_kind from the schema's id type; time_format rfc3339 and
//     timestamps from date-time created_at/updated_at;
//   - class from the schema's component name (issue-comment ->
//     IssueComment); skeleton: the read's schema, every property empty,
//     then the overlay's merge patch.
func (g *ghImporter) resource(ov *openapi.OverlayResource) (format.Resource, error) {
	r := ov.Resource
	fail := func(msg string, args ...any) (format.Resource, error) {
		return format.Resource{}, fmt.Errorf("overlay: resource %s: %s", r.Name, fmt.Sprintf(msg, args...))
	}
	get, ok := g.byID[ov.GetOp]
	if !ok {
		return fail("get_op %q is no operationId of the description", ov.GetOp)
	}
	itemOp := get
	if ov.ItemOp != "" {
		if itemOp, ok = g.byID[ov.ItemOp]; !ok {
			return fail("item_op %q is no operationId of the description", ov.ItemOp)
		}
	}
	item, _ := g.names.rename(itemOp)
	if r.Item == "" {
		r.Item = item
	}
	if readPath, _ := g.names.rename(get); readPath != r.Item {
		r.ReadPaths = sortedUnique(append(r.ReadPaths, readPath))
	}
	g.claim(get, r.Name)
	params := templateParams(r.Item)
	if len(params) == 0 {
		return fail("the item path %s has no parameter to address an entity by", r.Item)
	}
	keyParam := params[len(params)-1]
	if r.Parents == nil {
		r.Parents = params[:len(params)-1]
	}
	_, ref, _ := openapi.Success(get.Op)
	if ref == nil || ref.Value == nil {
		return fail("%s answers no JSON object to take the resource's shape from", ov.GetOp)
	}
	schema := ref.Value
	if r.Key == "" {
		r.Key = keyField(keyParam, schema)
		g.report.AddInferred(r.Name, "key", r.Key, "the item path's last parameter {"+keyParam+"}", 0.8)
	}
	if r.IDKind == "" {
		switch id := schema.Properties["id"]; {
		case id != nil && id.Value != nil && id.Value.Type.Is("integer"):
			r.IDKind = "integer"
		case id == nil:
			r.IDKind = "none"
		}
	}
	if r.Class == "" {
		r.Class = className(openapi.RefName(ref))
	}
	if r.TimeFormat == "" {
		for _, f := range []string{"created_at", "updated_at"} {
			if p := schema.Properties[f]; p != nil && p.Value != nil && p.Value.Format == "date-time" {
				r.TimeFormat = "rfc3339"
				r.Timestamps = append(r.Timestamps, f)
			}
		}
	}
	parent := r.Item[:strings.LastIndex(r.Item, "/")]
	for _, id := range ov.CreateOps {
		o, ok := g.byID[id]
		if !ok {
			return fail("create_ops: %q is no operationId of the description", id)
		}
		p, _ := g.names.rename(o)
		if !subset(templateParams(p), r.Parents) {
			return fail("create path %s has parameters that are not parents %q", p, r.Parents)
		}
		if p == parent && r.Collection == "" {
			r.Collection = p
		} else if p != r.Collection {
			r.CreatePaths = append(r.CreatePaths, p)
		}
		status, _, _ := openapi.Success(o.Op)
		if r.CreateStatus == 0 && status != 200 {
			r.CreateStatus = status
		}
		if r.Required == nil {
			r.Required = requiredOf(o.Op)
		}
		g.claim(o, r.Name)
	}
	for _, id := range ov.ListOps {
		o, ok := g.byID[id]
		if !ok {
			return fail("list_ops: %q is no operationId of the description", id)
		}
		p, _ := g.names.rename(o)
		if !subset(templateParams(p), r.Parents) {
			g.report.AddUnresolved(id, "list path "+p+" names a parameter that is no parent of "+r.Name+": served as a template", "high")
			continue
		}
		if p != r.Collection {
			r.ListPaths = append(r.ListPaths, p)
		}
		if _, s, _ := openapi.Success(o.Op); r.List == "" && s != nil && s.Value != nil && s.Value.Type.Is("array") {
			r.List = "array"
		}
		g.claim(o, r.Name)
	}
	if id := ov.UpdateOp; id != "" {
		o, ok := g.byID[id]
		if !ok {
			return fail("update_op %q is no operationId of the description", id)
		}
		if r.Update == nil {
			r.Update = []string{o.Method}
		}
		g.claim(o, r.Name)
	}
	if id := ov.DeleteOp; id != "" {
		o, ok := g.byID[id]
		if !ok {
			return fail("delete_op %q is no operationId of the description", id)
		}
		if status, _, _ := openapi.Success(o.Op); r.DeleteStatus == 0 && status == 204 {
			r.DeleteStatus = 204
		}
		g.claim(o, r.Name)
	} else if r.Delete == "" {
		r.Delete = "none"
	}
	if err := g.actions(&r, ov); err != nil {
		return fail("%v", err)
	}
	for _, path := range slices.Sorted(maps.Keys(ov.MemberOps)) {
		o, ok := g.byID[ov.MemberOps[path]]
		if !ok {
			return fail("member_ops.%s: %q is no operationId of the description", path, ov.MemberOps[path])
		}
		g.claim(o, r.Name)
	}
	skel, from := g.skeleton(ref, ov)
	if _, ok := skel[r.KeyField()]; !ok {
		skel[r.KeyField()] = g.Sample(schema.Properties[r.KeyField()])
	}
	g.report.AddInferred(r.Name, "skeleton", from, ov.GetOp, openapi.Confidence(from))
	g.report.AddInferred(r.Name, "routes", r.Item, "operations "+strings.Join(g.claimsOf(r.Name), ", "), 1)
	// The fields a GitHub-style import writes; the overlay's others
	// (create rules, nested defaults, ...) are not written.
	return format.Resource{
		Name: r.Name, Collection: r.Collection, Item: r.Item, IDPrefix: r.IDPrefix,
		Skeleton: openapi.Compact(skel), Timestamps: r.Timestamps, Immutable: r.Immutable,
		Update: r.Update, Delete: r.Delete, Actions: r.Actions,
		Keys: format.Keys{
			Class: r.Class, CreatePaths: r.CreatePaths, ListPaths: r.ListPaths, ReadPaths: r.ReadPaths,
			Key: r.Key, KeyPrefix: r.KeyPrefix, IDKind: r.IDKind,
			Parents: r.Parents, ParentDefaults: r.ParentDefaults, Counter: r.Counter,
			List: r.List, ListDefaults: r.ListDefaults, CreateStatus: r.CreateStatus,
			DeleteStatus: r.DeleteStatus, Required: r.Required, TimeFormat: r.TimeFormat,
			Computed: r.Computed, UpdateRules: r.UpdateRules, Members: r.Members,
		},
	}, nil
}

// actions anchors the overlay's action_ops: an action is {item}/{name}
// with the operation's method (PUT for GitHub's merge).
func (g *ghImporter) actions(r *format.Resource, ov *openapi.OverlayResource) error {
	for _, name := range slices.Sorted(maps.Keys(ov.ActionOps)) {
		o, ok := g.byID[ov.ActionOps[name]]
		if !ok {
			return fmt.Errorf("action_ops.%s: %q is no operationId of the description", name, ov.ActionOps[name])
		}
		if p, _ := g.names.rename(o); p != r.Item+"/"+name {
			return fmt.Errorf("action_ops.%s: %s is not %s/%s", name, p, r.Item, name)
		}
		found := false
		for i := range r.Actions {
			if r.Actions[i].Name == name {
				found = true
				if r.Actions[i].Method == "" && o.Method != "POST" {
					r.Actions[i].Method = o.Method
				}
			}
		}
		if !found {
			a := format.Action{Name: name}
			if o.Method != "POST" {
				a.Method = o.Method
			}
			r.Actions = append(r.Actions, a)
		}
		g.claim(o, r.Name)
	}
	return nil
}

// skeleton is built from the read's schema alone
// (openapi.Importer.Skeleton) and the defaults its first create's body
// declares, with the overlay's patch merged in: the
// read's example is another entity's values (octocat's comment on issue
// 1347), which a new entity must not take (SPEC §13).
func (g *ghImporter) skeleton(ref *openapi3.SchemaRef, ov *openapi.OverlayResource) (map[string]any, string) {
	skel, from := g.Skeleton(ref), "schema"
	if len(ov.CreateOps) > 0 {
		if o, ok := g.byID[ov.CreateOps[0]]; ok {
			g.WithCreateDefaults(skel, ref, o.Op)
		}
	}
	if ov.Patch != nil {
		skel = openapi.MergePatch(skel, ov.Patch)
		from += "+overlay"
	}
	// A null the schema does not allow (the overlay's way to say "not
	// set": a repository's parent, a pull request's head object that a
	// create's string would not fit) leaves the field out instead.
	for _, k := range slices.Sorted(maps.Keys(skel)) {
		if p := ref.Value.Properties[k]; skel[k] == nil && p != nil && p.Value != nil && !openapi.Nullable(p.Value) && !openapi.Required(ref.Value, k) {
			delete(skel, k)
		}
	}
	return skel, from
}

func (g *ghImporter) claim(o openapi.Operation, name string) { g.Claim(o.Method, o.Path, name) }

func (g *ghImporter) claimsOf(name string) []string {
	var out []string
	for _, o := range g.ops {
		if g.ClaimedBy(o.Method, o.Path) == name {
			out = append(out, o.Op.OperationID)
		}
	}
	sort.Strings(out)
	return out
}

// keyField is the field a path parameter names: itself when the schema
// has it ({name}, {ref}), else with _number or _id stripped
// ({issue_number} -> number, {comment_id} -> id).
func keyField(param string, s *openapi3.Schema) string {
	if s.Properties[param] != nil {
		return param
	}
	for _, suffix := range []string{"number", "id", "sha", "name"} {
		if strings.HasSuffix(param, "_"+suffix) && s.Properties[suffix] != nil {
			return suffix
		}
	}
	return "id"
}

// className is a component name as a class: issue-comment -> IssueComment.
func className(component string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(component, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// requiredOf lists the required fields of an operation's JSON body.
func requiredOf(op *openapi3.Operation) []string {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := openapi.JSONMedia(op.RequestBody.Value.Content)
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	req := append([]string(nil), mt.Schema.Value.Required...)
	sort.Strings(req)
	return req
}
