package format

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// validateEnvelope checks an envelope list: list_body is a JSON object
// whose list_key member is an array.
func validateEnvelope(k *Keys, at string, probs *Problems) {
	var body map[string]any
	if err := json.Unmarshal([]byte(k.ListBody), &body); err != nil || body == nil {
		probs.addf("%s: list = \"envelope\" needs list_body, a JSON object (%q is not one)", at, k.ListBody)
		return
	}
	if _, ok := body[k.ListKey].([]any); !ok || k.ListKey == "" {
		probs.addf("%s: list_key %q must name an array member of list_body %s", at, k.ListKey, k.ListBody)
	}
}

// plainItem reports whether item is collection/{id}, or, for a
// collection whose last segment ends in a format (/Accounts.json),
// the path before the format, /{id}, and the format.
func plainItem(collection, item string) bool {
	if item == collection+"/{id}" {
		return true
	}
	i := strings.LastIndexByte(item, '/')
	name, suffix := segmentParam(item[i+1:])
	return name == "id" && suffix != "" && item[:i]+suffix == collection
}

// validateKeys checks the fields of Keys and the paths they change. The
// Stripe-shaped rule (item = collection + "/{id}") holds for resources
// that use none of them.
func validateKeys(r *Resource, skel map[string]any, at string, probs *Problems) {
	k := &r.Keys
	if !r.Keyed() && len(k.CreatePaths) == 0 && len(k.ListPaths) == 0 && len(k.ReadPaths) == 0 {
		if !strings.HasPrefix(r.Collection, "/") {
			probs.addf("%s: collection %q must be a path starting with /", at, r.Collection)
		}
		if !plainItem(r.Collection, r.Item) {
			probs.addf("%s: item %q must be the collection path followed by /{id} (or, for a collection ending in a format such as .json, the path before it, /{id} and the format: /Accounts.json, /Accounts/{id}.json)", at, r.Item)
		}
	} else {
		validateKeyedPaths(r, at, probs)
	}
	switch k.IDKind {
	case "", "string":
		if r.IDPrefix == "" {
			probs.addf("%s: id_prefix is required (e.g. \"cus_\"), or set id_kind = \"integer\" or \"none\"", at)
		}
	case "digits":
		if r.IDPrefix != "" {
			probs.addf("%s: id_kind = \"digits\" ids are decimal digits only: remove id_prefix %q, or set id_kind = \"string\"", at, r.IDPrefix)
		}
	case "integer", "none":
	default:
		probs.addf("%s: id_kind %q: want \"string\", \"digits\", \"integer\" or \"none\"", at, k.IDKind)
	}
	switch k.List {
	case "", "stripe", "array":
		if k.ListKey != "" || k.ListBody != "" {
			probs.addf("%s: list_key and list_body are for list = \"envelope\": remove them or set it", at)
		}
	case "envelope":
		validateEnvelope(k, at, probs)
	default:
		probs.addf("%s: list %q: want \"stripe\" (an object:list envelope), \"array\" (a bare array paged by Link headers) or \"envelope\" (the page in list_key of list_body)", at, k.List)
	}
	if k.ItemEnvelope != "" && !ValidName(k.ItemEnvelope) {
		probs.addf("%s: item_envelope %q: want the name of the member an entity is wrapped in (data)", at, k.ItemEnvelope)
	}
	if k.CreateBody != "" {
		var stub map[string]any
		if err := json.Unmarshal([]byte(k.CreateBody), &stub); err != nil || stub == nil {
			probs.addf("%s: create_body is not a JSON object (%q): write the create's answer, such as {\"id\": \"{id}\", \"self\": \"$.self\"}", at, k.CreateBody)
		}
	}
	switch k.CreateStatus {
	case 0, 200, 201, 202:
	default:
		probs.addf("%s: create_status %d: want 200, 201 or 202 (accepted, as DigitalOcean creates a droplet)", at, k.CreateStatus)
	}
	switch k.DeleteStatus {
	case 0, 200, 204:
	default:
		probs.addf("%s: delete_status %d: want 200 or 204 (no body)", at, k.DeleteStatus)
	}
	if k.DeleteStatus == 204 && r.Delete == "tombstone" {
		probs.addf("%s: delete_status = 204 answers no body, so delete = \"tombstone\" has nothing to answer with: use one", at)
	}
	switch k.TimeFormat {
	case "", "unix", "rfc3339":
	default:
		probs.addf("%s: time_format %q: want \"unix\" or \"rfc3339\"", at, k.TimeFormat)
	}
	if skel != nil {
		if _, ok := skel[r.KeyField()]; !ok {
			probs.addf("%s: key %q is not a field of the skeleton: add it", at, r.KeyField())
		}
	}
	for _, f := range k.Required {
		if f == "" {
			probs.addf("%s: required lists an empty field name", at)
		}
	}
	parents := map[string]bool{}
	for _, p := range k.Parents {
		if p == "" || parents[p] {
			probs.addf("%s: parents %q: want distinct path parameter names", at, k.Parents)
		}
		parents[p] = true
	}
	for _, p := range slices.Sorted(maps.Keys(k.ParentDefaults)) {
		if !parents[p] {
			probs.addf("%s: parent_defaults.%s names no parent (parents are %q)", at, p, k.Parents)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(k.Computed)) {
		if name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
			probs.addf("%s: computed.%s: want a field name, or dotted names for a nested field", at, name)
		}
		for _, ph := range templateNames(k.Computed[name]) {
			_, field := skel[ph]
			if ph != "base" && !parents[ph] && !field {
				probs.addf("%s: computed.%s uses {%s}: want {base}, a parent (%q) or a top-level field of the skeleton", at, name, ph, k.Parents)
			}
		}
	}
	for _, f := range slices.Sorted(maps.Keys(k.ListDefaults)) {
		if _, ok := skel[f]; skel != nil && !ok {
			probs.addf("%s: list_defaults.%s is not a field of the skeleton", at, f)
		}
	}
	validateRules(k.UpdateRules, at+" update_rules", probs)
	for j, m := range k.Members {
		mat := fmt.Sprintf("%s members[%d] (%s)", at, j, m.Path)
		if m.Path == "" || strings.ContainsAny(m.Path, "/{}") {
			probs.addf("%s: path must be one path segment", mat)
		}
		if m.Resource == "" {
			probs.addf("%s: resource is required (the resource whose entities are added)", mat)
		}
		field := m.Field
		if field == "" {
			field = m.Path
		}
		if v, ok := skel[field]; skel != nil && !ok {
			probs.addf("%s: field %q is not a field of the skeleton", mat, field)
		} else if _, isArray := v.([]any); skel != nil && !isArray {
			probs.addf("%s: field %q must be an array in the skeleton", mat, field)
		}
	}
	for j, a := range r.Actions {
		if a.Method != "" && a.Method != "POST" && a.Method != "PUT" {
			probs.addf("%s actions[%d] (%s): method %q: want POST or PUT", at, j, a.Name, a.Method)
		}
	}
}

// validateKeyedPaths checks the paths of a keyed resource: the item ends in
// its key parameter and every other parameter of every path is a parent;
// a create path names every parent or has a default for it.
func validateKeyedPaths(r *Resource, at string, probs *Problems) {
	k := &r.Keys
	parents := map[string]bool{}
	for _, p := range k.Parents {
		parents[p] = true
	}
	if r.Collection == "" && len(k.CreatePaths) == 0 {
		probs.addf("%s: want collection or create_paths (where entities are created)", at)
	}
	if r.Collection != "" && !strings.HasPrefix(r.Collection, "/") {
		probs.addf("%s: collection %q must be a path starting with /", at, r.Collection)
	}
	last := lastParam(r.Item)
	if !strings.HasPrefix(r.Item, "/") || last == "" {
		probs.addf("%s: item %q must be a path ending in its key parameter, like /repos/{owner}/{repo}/issues/{issue_number}", at, r.Item)
		return
	}
	if strings.HasSuffix(r.Item, "...}") && (len(r.Actions) > 0 || len(k.Members) > 0) {
		probs.addf("%s: item %q ends in a rest parameter, so no action or member path can follow it", at, r.Item)
	}
	check := func(field, path string, item bool) {
		if !strings.HasPrefix(path, "/") {
			probs.addf("%s: %s %q must be a path starting with /", at, field, path)
			return
		}
		for _, p := range PathParams(path) {
			if item && p == last {
				continue
			}
			if !parents[p] {
				probs.addf("%s: %s %q has {%s}, which is not a parent: add it to parents", at, field, path, p)
			}
		}
	}
	if r.Collection != "" {
		check("collection", r.Collection, false)
	}
	check("item", r.Item, true)
	itemParams := strings.Join(PathParams(r.Item), ",")
	for _, p := range k.ReadPaths {
		check("read_paths", p, true)
		if strings.Join(onItem(PathParams(p), PathParams(r.Item), parents), ",") != itemParams {
			probs.addf("%s: read_paths %q must have the item's parameters (%s), in its order, and may add parents", at, p, itemParams)
		}
	}
	for _, p := range k.ListPaths {
		check("list_paths", p, false)
	}
	creates := append([]string{}, k.CreatePaths...)
	if r.Collection != "" {
		creates = append(creates, r.Collection)
	}
	for _, p := range k.CreatePaths {
		check("create_paths", p, false)
	}
	for _, p := range creates {
		have := map[string]bool{}
		for _, n := range PathParams(p) {
			have[n] = true
		}
		for _, parent := range k.Parents {
			if _, def := k.ParentDefaults[parent]; !have[parent] && !def && parent != r.KeyParam() {
				probs.addf("%s: create path %q does not carry parent {%s}: add it to parent_defaults", at, p, parent)
			}
		}
	}
}

// onItem drops from params the parents that the item path does not carry:
// a read path may name them (a customer's tax id is read at
// /v1/customers/{customer}/tax_ids/{id} as well as at /v1/tax_ids/{id}),
// and then reads only the entities of that parent.
func onItem(params, item []string, parents map[string]bool) []string {
	on := map[string]bool{}
	for _, p := range item {
		on[p] = true
	}
	var out []string
	for _, p := range params {
		if on[p] || !parents[p] {
			out = append(out, p)
		}
	}
	return out
}

// KeyParam is the name of the item path's last parameter.
func (r *Resource) KeyParam() string { return lastParam(r.Item) }

// lastParam returns the name of a path's last segment when it is a
// parameter, whole or followed by text ({Sid}.json), else "".
func lastParam(path string) string {
	i := strings.LastIndexByte(path, '/')
	name, _ := segmentParam(path[i+1:])
	return strings.TrimSuffix(name, "...")
}

// segmentParam is the parameter a template segment holds, {name} or
// {name}suffix, and the suffix; "" when it holds none.
func segmentParam(seg string) (name, suffix string) {
	cl := strings.IndexByte(seg, '}')
	if len(seg) < 3 || seg[0] != '{' || cl < 2 || strings.ContainsAny(seg[cl+1:], "{}") {
		return "", ""
	}
	return seg[1:cl], seg[cl+1:]
}

// templateNames lists the {name} placeholders of a template.
func templateNames(t string) []string {
	var out []string
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, t[i+1:i+j])
		t = t[i+j+1:]
	}
}

// skeletonFields returns a skeleton's top-level fields, or nil when it is
// not a JSON object (reported elsewhere).
func skeletonFields(s string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}
