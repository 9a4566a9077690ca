package openapi

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/dialect/rest"
	"github.com/wraithdev/wraith/twin/format"
)

// keyNames are the fields a rest resource's key is looked for in
// (rest.KeyNames); an overlay's key for the resource goes first.
var keyNames = rest.KeyNames

// hexIDPattern is a key pattern of a literal prefix, or prefixes to
// choose from, and 32 hexadecimal digits (Twilio's ^AC[0-9a-fA-F]{32}$,
// ^(SM|MM)[0-9a-fA-F]{32}$), which the rest dialect's ids (a prefix and
// 32 hexadecimal digits) match when the prefix is the pattern's (the
// first of several).
var hexIDPattern = regexp.MustCompile(`^\^\(?([A-Za-z]{1,8})(?:\|[A-Za-z]{1,8})*\)?\[0-9a-fA-F\]\{32\}\$$`)

// resource infers one resource from a collection/item pair, or reports
// why the pair is served as templates.
func (r *restImport) resource(p pair, taken map[string]bool) (format.Resource, bool) {
	im := r.im
	c, it := r.byServed[p.coll], r.byServed[p.item]
	get, hasGet := it["GET"]
	list, hasList := c["GET"]
	create, hasCreate := c["POST"]
	if !hasGet || (!hasList && !hasCreate) {
		im.report.AddUnresolved(p.coll, "collection without a read of its item, or without both list and create: its operations are served as templates", "high")
		return format.Resource{}, false
	}
	_, ref, mt := Success(get.Op)
	if ref == nil || ref.Value == nil {
		im.report.AddUnresolved(p.coll, "the item's read answers no JSON object: served as templates", "medium")
		return format.Resource{}, false
	}
	props, _ := mergedProps(ref.Value, 0)
	env := envelopeKey(props)
	if env != "" {
		// {"data": {...}}: the entity is the member's, and so are its
		// write bodies (Asana, Directus).
		ref, mt = props[env], nil
		props, _ = mergedProps(ref.Value, 0)
	}
	name := restName(ref, p)
	if taken[name] || !format.ValidName(name) {
		im.report.AddUnresolved(p.coll, "no resource name of its own (its schema's is taken or not a name): served as templates", "medium")
		return format.Resource{}, false
	}
	key, basis, conf := r.keyOf(name, props)
	if key == "" {
		im.report.AddUnresolved(p.coll, "the item's answer has none of the key fields "+strings.Join(keyNames, ", ")+": served as templates; an overlay [[resources]] entry with name = \""+name+"\" and key = \"FIELD\" names it", "medium")
		return format.Resource{}, false
	}
	taken[name] = true
	im.report.AddInferred(name, "key", key, basis, conf)
	fr := format.Resource{Name: name, Collection: r.rename(p.coll)}
	if env != "" {
		fr.ItemEnvelope = env
		im.report.AddInferred(name, "item_envelope", env, "the item's read answers one member, "+env+", an object with a key", 0.8)
	}
	if p.suffix == "" {
		fr.Item = r.rename(p.item)
	} else {
		fr.Item = r.rename(strings.TrimSuffix(p.coll, p.suffix)) + "/{id}" + p.suffix
	}
	fr.Parents = format.PathParams(fr.Collection)
	if len(fr.Parents) > 0 {
		im.report.AddInferred(name, "parents", strings.Join(fr.Parents, ","), "the collection's path parameters", 1)
	}
	r.ids(&fr, name, key, props[key])
	fr.NotFound = r.notFound(get)
	var sent map[string]*openapi3.SchemaRef
	if hasCreate {
		sent = sentProps(create.Op, env)
	}
	fr.Skeleton = Compact(r.skeleton(ref, mt, props, sent))
	r.referenceLists(&fr, props, sent)
	im.Claim("GET", get.Path, name)
	if hasList {
		_, s, lmt := Success(list.Op)
		switch key := listKey(s, ref, key); {
		case s != nil && s.Value != nil && s.Value.Type.Is("array"):
			fr.List = "array"
			im.report.AddInferred(name, "list", "array", "the list answers a bare array", 1)
		case key != "":
			body, _ := r.im.restExample(s, lmt).(map[string]any)
			if body == nil {
				body = map[string]any{}
			}
			body[key] = []any{}
			fr.List, fr.ListKey, fr.ListBody = "envelope", key, Compact(body)
			im.report.AddInferred(name, "list", "envelope "+key, "the list answers an object whose one array member is "+key, 0.8)
		default:
			// A list served as a bare array where the description says
			// otherwise is an answer it refuses: the list stays a
			// template, and its entities are read one by one.
			im.report.AddUnresolved(p.coll, "the list answers neither a bare array nor an object with an array member of the item's entries: the list is served as a template", "low")
			hasList = false
		}
		if hasList {
			im.Claim("GET", list.Path, name)
		}
	}
	if !hasList {
		fr.Omit = append(fr.Omit, "list")
	}
	if hasCreate {
		if _, cs, _ := Success(create.Op); cs != nil && cs.Value != nil && cs.Value.Type.Is("array") {
			// Jira's POST /filter/{id}/permission answers every
			// permission of the filter: no entity of the twin's.
			im.report.AddUnresolved(p.coll, "the create answers an array, not the entity it made: served as a template", "low")
			hasCreate = false
		}
	}
	if hasCreate {
		switch status, _, _ := Success(create.Op); status {
		case 200, 201, 202:
			fr.CreateStatus = status
		}
		if _, cs, _ := Success(create.Op); env == "" && cs != nil && RefName(cs) != "" && RefName(cs) != RefName(ref) {
			if body, digits := r.stubBody(cs, props, key, fr.IDPrefix != ""); body != "" {
				fr.CreateBody = body
				im.report.AddInferred(name, "create_body", body, fmt.Sprintf("the create answers %s, a stub of the %s its item's read answers", RefName(cs), RefName(ref)), 0.7)
				if digits {
					fr.IDKind, fr.IDPrefix = "digits", ""
					im.report.Retract(name, "id_prefix")
					im.report.AddInferred(name, "id_kind", "digits", fmt.Sprintf("the create's %s numbers the %s its %s keys by a string", RefName(cs), key, RefName(ref)), 0.7)
				}
			} else {
				im.report.AddUnresolved(p.coll, fmt.Sprintf("the create answers %s, not the %s its item's read answers, and shares no field with it: the twin answers the whole entity, which that schema may refuse; an overlay's create_body writes the answer", RefName(cs), RefName(ref)), "low")
			}
		}
		if _, cs, _ := Success(create.Op); env != "" && cs != nil {
			if body := r.envelopedStub(cs, env); body != "" {
				fr.CreateBody = body
				im.report.AddInferred(name, "create_body", body, fmt.Sprintf("the create answers the entity in %q beside members its schema requires", env), 0.7)
			}
		}
		fr.Required = createRequired(create.Op, env)
		if len(fr.Required) > 0 {
			im.report.AddInferred(name, "required", strings.Join(fr.Required, ","), "the create's request body requires them", 1)
		}
		im.Claim("POST", create.Path, name)
		r.writes = append(r.writes, restWrite{resource: name, method: "POST", path: r.path(create), env: env, entity: ref})
	} else {
		fr.Omit = append(fr.Omit, "create")
	}
	for _, m := range []string{"PATCH", "POST", "PUT"} {
		o, ok := it[m]
		if !ok {
			continue
		}
		if why := r.notUpdate(o, ref); why != "" {
			im.report.AddUnresolved(m+" "+o.Path, why+": served as a template, not as "+name+"'s update", "low")
			continue
		}
		fr.Update = append(fr.Update, m)
		im.Claim(m, o.Path, name)
		r.writes = append(r.writes, restWrite{resource: name, method: m, path: r.path(o), env: env, entity: ref})
	}
	if len(fr.Update) == 0 {
		fr.Omit = append(fr.Omit, "update")
	}
	if del, ok := it["DELETE"]; ok {
		if status, ds, _ := Success(del.Op); status == 200 {
			fr.DeleteStatus = 200
			if body := r.deletedBody(ds, ref, key); body != "" {
				fr.DeletedBody = body
				im.report.AddInferred(name, "deleted_body", body, "the delete answers "+RefName(ds)+", not the entity", 0.7)
			}
		} else {
			fr.DeleteStatus = 204
		}
		im.Claim("DELETE", del.Path, name)
	} else {
		fr.Delete = "none"
	}
	im.report.AddInferred(name, "routes", fr.Collection, "collection/item pair "+p.coll+" "+p.item, 1)
	return fr, true
}

// stubBody is the create_body of a create that answers cs, a stub of
// the entity whose properties are item (Jira's CreatedIssue {id, key,
// self}): each field of cs the entity has, as it is ("$.key"), or as
// text where the stub says string and the entity a number ("{id}": Jira
// answers a new security scheme's integer id as a string); a field the
// entity lacks, holds in a type the stub's cannot be made of, or holds
// values the stub's enum does not list, is the stub's sample.
//
// A stub that numbers the key the entity holds as a string (Jira's
// ProjectIdentifiers, whose id is an integer where its Project says
// "10000") answers it "$.id as number" when minted, a minted id whose
// schema takes digits: digits reports that the resource's ids must be
// minted so (id_kind = "digits"). "" when cs shares no field with the
// entity (another schema, not its stub), or has the entity's key in a
// type the key cannot be answered in: a sampled key would name no
// entity.
func (r *restImport) stubBody(cs *openapi3.SchemaRef, item map[string]*openapi3.SchemaRef, key string, minted bool) (body string, digits bool) {
	if cs.Value == nil || !objectSchema(cs) {
		return "", false
	}
	props, _ := mergedProps(cs.Value, 0)
	out, shared := map[string]any{}, false
	for _, k := range sortedRefKeys(props) {
		want, have := props[k].Value, item[k]
		switch {
		case want == nil || have == nil || have.Value == nil:
		case sameType(want, have.Value) && enumTakes(want, have.Value):
			out[k], shared = "$."+k, true
			continue
		case want.Type.Is("string") && (have.Value.Type.Is("integer") || have.Value.Type.Is("number")):
			out[k], shared = "{"+k+"}", true
			continue
		case k == key && key == "id" && minted && (want.Type.Is("integer") || want.Type.Is("number")) &&
			have.Value.Type.Is("string") && validates(have, digitsSample) && validates(props[k], digitsNumber):
			out[k], shared, digits = "$."+k+" as number", true, true
			continue
		}
		if k == key {
			return "", false
		}
		out[k] = r.im.restExample(props[k], nil)
	}
	if !shared {
		return "", false
	}
	return Compact(out), digits
}

// digitsSample and digitsNumber are an id as id_kind = "digits" mints
// it, and as its stub answers it: what both schemas must take.
const digitsSample = "100001234"

const digitsNumber = float64(100001234)

// envelopedStub is the create_body of a create that answers the entity
// in its item envelope env beside other members its schema requires
// (DigitalOcean's droplet create answers {droplet, links}, where its read
// answers {droplet}): env as the whole entity, "$", and each other
// required member as its example or sample. cs may be a oneOf or anyOf,
// whose first branch with a member env is the answer's. "" when the
// create answers the envelope alone.
func (r *restImport) envelopedStub(cs *openapi3.SchemaRef, env string) string {
	branches := []*openapi3.SchemaRef{cs}
	if cs.Value != nil {
		branches = append(append(branches, cs.Value.OneOf...), cs.Value.AnyOf...)
	}
	for _, b := range branches {
		if b == nil || b.Value == nil || b.Value.Properties[env] == nil {
			continue
		}
		out := map[string]any{env: "$"}
		for _, k := range b.Value.Required {
			p := b.Value.Properties[k]
			if k == env || p == nil {
				continue
			}
			v := r.im.restExample(p, nil)
			if obj, ok := v.(map[string]any); ok && p.Value != nil {
				// A list of what the create started gets one entry, as
				// the provider answers (DigitalOcean's links.actions).
				fuller := maps.Clone(obj)
				if r.im.fillLists(fuller, p) && validates(p, fuller) {
					v = fuller
				}
			}
			if stubText(v) {
				// A create_body reads "$…" and "{field}" in its strings
				// as the entity's: a sample holding such text would be
				// answered otherwise than it is.
				return ""
			}
			out[k] = v
		}
		if len(out) == 1 {
			return ""
		}
		return Compact(out)
	}
	return ""
}

// stubText reports whether a sample holds a string a create_body reads
// as a template: one that starts with "$", or holds a "{".
func stubText(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.HasPrefix(t, "$") || strings.Contains(t, "{")
	case map[string]any:
		for _, e := range t {
			if stubText(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if stubText(e) {
				return true
			}
		}
	}
	return false
}

// enumTakes reports whether every value the entity's schema have allows
// is one of the stub's schema want's enum, if it has one: Box's Task
// answers "type": "task" where the terms of service it stands for holds
// "terms_of_service", so the stub's type is its own sample.
func enumTakes(want, have *openapi3.Schema) bool {
	if len(want.Enum) == 0 {
		return true
	}
	if len(have.Enum) == 0 {
		return false
	}
	for _, v := range have.Enum {
		if !slices.ContainsFunc(want.Enum, func(w any) bool { return reflect.DeepEqual(Normalize(w), Normalize(v)) }) {
			return false
		}
	}
	return true
}

// sameType reports whether two schemas have the same type (both untyped
// counts: a composed schema).
func sameType(a, b *openapi3.Schema) bool {
	switch {
	case a.Type == nil || b.Type == nil:
		return a.Type == nil && b.Type == nil
	}
	return slices.Equal(a.Type.Slice(), b.Type.Slice())
}

// deletedBody is the answer of a delete that answers ds, another schema
// than the entity's (OpenAI's DeleteFileResponse {id, object,
// deleted}): its sample, the key the deleted entity's id, a boolean
// "deleted" true. "" when the delete answers the entity, or no object.
func (r *restImport) deletedBody(ds, item *openapi3.SchemaRef, key string) string {
	if ds == nil || ds.Value == nil || (RefName(ds) != "" && RefName(ds) == RefName(item)) || RefName(ds) == "" {
		return ""
	}
	v, ok := r.im.restExample(ds, nil).(map[string]any)
	if !ok {
		return ""
	}
	props, _ := mergedProps(ds.Value, 0)
	if p := props[key]; p == nil || p.Value == nil || !p.Value.Type.Is("string") {
		return "" // the stub cannot name the entity it deleted
	}
	v[key] = "{id}"
	if p := props["deleted"]; p != nil && p.Value != nil && p.Value.Type.Is("boolean") {
		v["deleted"] = true
	}
	return Compact(v)
}

// notUpdate says why an item's write is not the resource's update, or
// "": an update answers the entity with 200, so a write that declares
// another success status (Box's POST /folders/{id} restores a folder
// with 201; Jira's PUTs that answer 204) or another schema is served as
// its template, which the description declares.
func (r *restImport) notUpdate(o Operation, item *openapi3.SchemaRef) string {
	status, s, _ := Success(o.Op)
	switch {
	case status == 0:
		return "" // the description declares no success: an update's answer is as good as any
	case status != 200:
		return fmt.Sprintf("its success is %d, where an update answers the entity with 200", status)
	case RefName(s) != "" && RefName(item) != "" && RefName(s) != RefName(item):
		return fmt.Sprintf("it answers %s, not the %s the item's read answers", RefName(s), RefName(item))
	}
	return ""
}

// notFound is the resource's own not-found answer, where its read
// declares a 404 in a schema other than the twin's error answer (Figma
// answers its webhooks' 404 in another schema than its files'), or
// declares no 404 but says another 4xx is its answer for an entity not
// found (notFoundStatus), else nil.
func (r *restImport) notFound(get Operation) *format.Answer {
	status := notFoundStatus(get.Op)
	if status == 0 {
		return nil
	}
	var schema *openapi3.SchemaRef
	if mt := JSONMedia(get.Op.Responses.Value(strconv.Itoa(status)).Value.Content); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
		schema = mt.Schema
	} else if status != 404 {
		// The status declared without a body (Jira's filter's 400): the
		// API's error schema says it.
		schema, _ = errorSchema(r.im.ops, "")
	}
	if schema == nil {
		return nil
	}
	a := r.im.errorAnswer(schema, status, notFoundSentence)
	if a == nil || (status == 404 && r.errs.NotFound != nil && a.Body == r.errs.NotFound.Body) {
		return nil
	}
	return a
}

// notFoundStatus is the status a read answers for an entity it does not
// find: 404 where it declares one; else the one 4xx whose description
// says so ("Returned if the filter is not found or the user does not
// have permission to view it": Jira's filter answers 400); else 0.
func notFoundStatus(op *openapi3.Operation) int {
	if op.Responses == nil {
		return 0
	}
	if resp := op.Responses.Value("404"); resp != nil && resp.Value != nil {
		return 404
	}
	found := 0
	for code, resp := range op.Responses.Map() {
		n, err := strconv.Atoi(code)
		if err != nil || n/100 != 4 || resp == nil || resp.Value == nil || resp.Value.Description == nil {
			continue
		}
		if strings.Contains(strings.ToLower(*resp.Value.Description), "not found") {
			if found != 0 {
				return 0 // two say so: neither is the answer
			}
			found = n
		}
	}
	return found
}

// restName is a resource's name: its schema's component name, lower-cased
// with other characters as _, else the collection's last segment.
func restName(ref *openapi3.SchemaRef, p pair) string {
	name := RefName(ref)
	if name == "" {
		seg := strings.TrimSuffix(p.coll, p.suffix)
		name = seg[strings.LastIndex(seg, "/")+1:]
	}
	var b strings.Builder
	for _, c := range strings.ToLower(name) {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return strings.Trim(b.String(), "_")
}

// keyOf is the field that keys a resource's entities, why, and how
// sure: the overlay's key, else the first of keyNames the schema has
// (id surest, since it is the common name).
func (r *restImport) keyOf(name string, props map[string]*openapi3.SchemaRef) (string, string, float64) {
	if ov := r.im.ov.Resource(name); ov != nil && ov.Key != "" {
		return ov.Key, "the overlay's key", 1
	}
	for i, k := range keyNames {
		if props[k] != nil {
			if i == 0 {
				return k, "a property named id", 0.9
			}
			return k, "a property named " + k + ", one of " + strings.Join(keyNames, ", "), 0.7
		}
	}
	return "", "", 0
}

// ids sets how a new entity gets its key. An id field is minted by the
// dialect (integer, or the resource's name as prefix and random
// characters); another key field is numbered by a counter when it is an
// integer, and otherwise copied from the minted id by a create rule.
func (r *restImport) ids(fr *format.Resource, name, key string, schema *openapi3.SchemaRef) {
	integer := schema != nil && schema.Value != nil && schema.Value.Type.Is("integer")
	prefix, basis, conf := strings.ReplaceAll(name, ".", "_")+"_", "the resource's name: the description shows no id format", 0.5
	if schema != nil && schema.Value != nil {
		if m := hexIDPattern.FindStringSubmatch(schema.Value.Pattern); m != nil {
			prefix, basis, conf = m[1], "the key's pattern "+schema.Value.Pattern, 0.9
		}
	}
	switch {
	case key == "id" && integer:
		fr.IDKind = "integer"
	case key == "id":
		fr.IDPrefix = prefix
		r.im.report.AddInferred(name, "id_prefix", prefix, basis, conf)
	case integer:
		fr.Key, fr.IDKind, fr.Counter = key, "none", name
		r.im.report.AddInferred(name, "counter", name, "an integer key "+key+" is numbered per parent", 0.5)
	default:
		fr.Key, fr.IDPrefix = key, prefix
		fr.Create = append(fr.Create, format.Rule{Set: map[string]any{key: "$.id"}})
		r.im.report.AddInferred(name, "id_prefix", prefix, basis+"; the key "+key+" is the minted id", conf)
	}
	fr.Immutable = append(fr.Immutable, key)
}

// skeleton is a new entity's starting object: the read's first example
// that validates, else the sampler's, with every other property of the
// schema present, so that a create or update can set it (the engine
// keeps the fields a skeleton has), but for the write-only ones.
//
// A nullable object the create sends a reference to (Box's folder
// parent {id}, a collaboration's item {type, id}, Asana's assignee by
// its gid) starts as a whole sample of its schema, not null: what is
// sent merges into it (a string is its key: rest.Dialect.FromString),
// and the answer has the members the schema requires beside the ones
// sent, as the provider answers the object the reference names.
func (r *restImport) skeleton(ref *openapi3.SchemaRef, mt *openapi3.MediaType, props, sent map[string]*openapi3.SchemaRef) map[string]any {
	skel, _ := r.im.restExample(ref, mt).(map[string]any)
	if skel == nil {
		skel = map[string]any{}
	}
	for _, k := range sortedRefKeys(props) {
		if m, empty := skel[k].(map[string]any); (skel[k] != nil && !(empty && len(m) == 0)) || sent[k] == nil || !objectSchema(props[k]) || !(objectSchema(sent[k]) || stringSchema(sent[k]) || stringBranch(sent[k])) {
			continue // set already, or no reference: an empty object is the sampler's, and says nothing
		}
		if v, ok := r.im.restExample(notNull(props[k]), nil).(map[string]any); ok {
			r.withKey(v, props[k])
			skel[k] = v
		}
	}
	for _, k := range sortedRefKeys(props) {
		if p := props[k].Value; p != nil && p.WriteOnly {
			// Sent, never answered (Jira's leadAccountId): without it in
			// the skeleton a create's value is not kept.
			delete(skel, k)
			continue
		}
		if _, ok := skel[k]; ok {
			continue
		}
		// null where the schema allows it; otherwise a null would be an
		// answer the description refuses, so the property's own example
		// or sample.
		if p := props[k]; p.Value == nil || Nullable(p.Value) {
			skel[k] = nil
		} else {
			skel[k] = r.im.restExample(p, nil)
		}
	}
	// Whatever an example gave, every scalar is one its property's
	// schema takes.
	validScalars(skel, ref, 0)
	return skel
}

// stringBranch reports whether s is a oneOf or anyOf with a string
// branch (DigitalOcean's droplet image: its slug, or its integer id).
func stringBranch(s *openapi3.SchemaRef) bool {
	if s == nil || s.Value == nil {
		return false
	}
	for _, branches := range []openapi3.SchemaRefs{s.Value.OneOf, s.Value.AnyOf} {
		for _, b := range branches {
			if stringSchema(b) {
				return true
			}
		}
	}
	return false
}

// referenceLists gives each list of keyed objects that a create sends
// as a list of their keys (a task's followers: gids sent, users
// answered) a nested default, the object sampled from the answer's item
// schema with its key: each key sent becomes that object with the key
// set (rest.Dialect.FromString), so the list answered is the answer's
// schema's. Each is reported for the resource.
func (r *restImport) referenceLists(fr *format.Resource, props, sent map[string]*openapi3.SchemaRef) {
	for _, k := range sortedRefKeys(sent) {
		s, a := sent[k], props[k]
		if s == nil || s.Value == nil || !s.Value.Type.Is("array") || s.Value.Items == nil || !stringSchema(s.Value.Items) {
			continue
		}
		if a == nil || a.Value == nil || !a.Value.Type.Is("array") || a.Value.Items == nil || !objectSchema(a.Value.Items) || !hasKey(a.Value.Items) {
			continue
		}
		v, ok := r.im.restExample(notNull(a.Value.Items), nil).(map[string]any)
		if !ok {
			continue
		}
		r.withKey(v, a.Value.Items)
		if fr.NestedDefaults == nil {
			fr.NestedDefaults = map[string]string{}
		}
		fr.NestedDefaults[k+"[]"] = Compact(v)
		r.im.report.AddInferred(fr.Name, "reference_list", k, "the create sends "+k+" as a list of strings, the answer holds a list of objects with a key: each string sent is the key of one, sampled from the answer's item schema", 0.8)
	}
}

// objectSchema reports whether s describes an object: typed so, with
// properties, or composed of parts or branches that are objects (Box's
// collaboration item, an allOf of a oneOf of File, Folder, WebLink).
func objectSchema(s *openapi3.SchemaRef) bool { return objectAt(s, 0) }

func objectAt(s *openapi3.SchemaRef, depth int) bool {
	if s == nil || s.Value == nil || depth > maxSampleDepth {
		return false
	}
	v := s.Value
	if v.Type.Is("object") || len(v.Properties) > 0 {
		return true
	}
	for _, parts := range []openapi3.SchemaRefs{v.AllOf, v.OneOf, v.AnyOf} {
		for _, p := range parts {
			if objectAt(p, depth+1) {
				return true
			}
		}
	}
	return false
}

// withKey gives a reference's sample the key its schema has, where the
// sample left it out (Asana's UserCompact requires no gid): a string
// sent for the reference is that key (rest.Dialect.FromString). The
// properties the description gives an example of are added too (its
// resource_type): the object a reference names has them.
func (r *restImport) withKey(v map[string]any, s *openapi3.SchemaRef) {
	props := withExamples(v, notNull(s))
	for _, k := range keyNames {
		if _, ok := v[k]; ok {
			if p := props[k]; p != nil && !stringSchema(p) {
				r.withStringKey(v, props)
			}
			return
		}
		if p := props[k]; p != nil {
			v[k] = r.im.restExample(p, nil)
			if !stringSchema(p) {
				r.withStringKey(v, props)
			}
			return
		}
	}
}

// withExamples adds to an object's sample the properties of s that the
// description gives an example of and v leaves out, but for write-only
// ones, and returns s's properties.
func withExamples(v map[string]any, s *openapi3.SchemaRef) map[string]*openapi3.SchemaRef {
	props, _ := mergedProps(s.Value, 0)
	for _, k := range sortedRefKeys(props) {
		if p := props[k].Value; p != nil && p.Example != nil && !p.WriteOnly {
			if _, ok := v[k]; !ok {
				v[k] = Normalize(p.Example)
			}
		}
	}
	return props
}

// withStringKey adds to a reference's sample, keyed by a number, the
// first string key its schema has beside it (DigitalOcean's image: an
// integer id and a slug), so that a string sent for it that is no
// number names it by that key (rest.Dialect.FromString).
func (r *restImport) withStringKey(v map[string]any, props map[string]*openapi3.SchemaRef) {
	for _, k := range keyNames {
		if p := props[k]; p != nil && stringSchema(p) {
			if _, ok := v[k]; !ok {
				v[k] = r.im.restExample(p, nil)
			}
			return
		}
	}
}

// stringSchema reports whether s is a string, typed so or by an allOf
// part (Asana's status update parent: an allOf of a string and its
// description).
func stringSchema(s *openapi3.SchemaRef) bool { return stringAt(s, 0) }

func stringAt(s *openapi3.SchemaRef, depth int) bool {
	if s == nil || s.Value == nil || depth > maxSampleDepth {
		return false
	}
	if s.Value.Type.Is("string") {
		return true
	}
	for _, part := range s.Value.AllOf {
		if stringAt(part, depth+1) {
			return true
		}
	}
	return false
}

// notNull is s with its nullable lifted, at its top and in its allOf
// parts, so that the sampler samples the object rather than null.
func notNull(s *openapi3.SchemaRef) *openapi3.SchemaRef {
	if s == nil || s.Value == nil {
		return s
	}
	c := *s.Value
	c.Nullable = false
	c.AllOf = make(openapi3.SchemaRefs, len(s.Value.AllOf))
	for i, part := range s.Value.AllOf {
		c.AllOf[i] = notNull(part)
	}
	return &openapi3.SchemaRef{Value: &c}
}

// requestProps are the properties of an operation's request body, in
// the first media type of JSON, a form and multipart that it has.
// Inside an item envelope env, they are the envelope member's.
func requestProps(op *openapi3.Operation, env string) map[string]*openapi3.SchemaRef {
	s, _ := requestSchema(op, env)
	if s == nil {
		return nil
	}
	props, _ := mergedProps(s.Value, 0)
	return props
}

// sentProps are requestProps with those of each branch of a body that
// is a oneOf or anyOf (DigitalOcean's droplet create: one droplet or
// several), which a create may send.
func sentProps(op *openapi3.Operation, env string) map[string]*openapi3.SchemaRef {
	s, _ := requestSchema(op, env)
	if s == nil || s.Value == nil {
		return nil
	}
	props, _ := mergedProps(s.Value, 0)
	addBranchProps(props, s.Value.OneOf)
	addBranchProps(props, s.Value.AnyOf)
	return props
}

// addBranchProps adds to props the properties of each of branches
// (through allOf) that props does not name already.
func addBranchProps(props map[string]*openapi3.SchemaRef, branches []*openapi3.SchemaRef) {
	for _, b := range branches {
		if b == nil || b.Value == nil {
			continue
		}
		bp, _ := mergedProps(b.Value, 0)
		for k, v := range bp {
			if props[k] == nil {
				props[k] = v
			}
		}
	}
}

// requestSchema is an operation's request body schema in the first media
// type of JSON, a form and multipart that it has, and that type; inside
// an item envelope env, the envelope member's schema (a JSON body's)
// where that member is an object.
func requestSchema(op *openapi3.Operation, env string) (*openapi3.SchemaRef, string) {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil, ""
	}
	for _, mt := range []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data"} {
		m := op.RequestBody.Value.Content.Get(mt)
		if m == nil || m.Schema == nil || m.Schema.Value == nil {
			continue
		}
		s := m.Schema
		if env != "" && mt == "application/json" {
			// An envelope holds an object: a member of the envelope's
			// name that is a string is a field of a bare body
			// (DigitalOcean's CDN endpoint sends its endpoint, a host
			// name, beside its origin).
			props, _ := mergedProps(s.Value, 0)
			if inner := props[env]; objectSchema(inner) {
				s = inner
			}
		}
		return s, mt
	}
	return nil, ""
}

// mergedProps are an object schema's properties through allOf, and its
// required names.
func mergedProps(s *openapi3.Schema, depth int) (map[string]*openapi3.SchemaRef, []string) {
	props := map[string]*openapi3.SchemaRef{}
	var required []string
	if s == nil || depth > maxSampleDepth {
		return props, nil
	}
	for _, part := range s.AllOf {
		p, req := mergedProps(part.Value, depth+1)
		for k, v := range p {
			props[k] = v
		}
		required = append(required, req...)
	}
	for k, v := range s.Properties {
		props[k] = v
	}
	return props, append(required, s.Required...)
}

// envelopeKey is the one property of an answer that wraps the object
// ({"data": {...}}, {"ssh_key": {...}}), or "".
func envelopeKey(props map[string]*openapi3.SchemaRef) string {
	if len(props) != 1 {
		return ""
	}
	for k, v := range props {
		if v.Value == nil {
			return ""
		}
		inner, _ := mergedProps(v.Value, 0)
		for _, n := range keyNames {
			if inner[n] != nil {
				return k
			}
		}
	}
	return ""
}

func sortedRefKeys(m map[string]*openapi3.SchemaRef) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

// listKey is the member of a list answer that holds the page: the one
// array property of an object schema (Jira's values, Twilio's accounts
// beside meta), or, of several, the one whose items are the item's
// schema or have its key (Box's entries beside order), or "".
func listKey(s, item *openapi3.SchemaRef, key string) string {
	if s == nil || s.Value == nil {
		return ""
	}
	props, _ := mergedProps(s.Value, 0)
	var arrays []string
	for _, k := range sortedRefKeys(props) {
		if v := props[k].Value; v != nil && v.Type.Is("array") {
			arrays = append(arrays, k)
		}
	}
	if len(arrays) == 1 {
		return arrays[0]
	}
	found := ""
	for _, k := range arrays {
		items := props[k].Value.Items
		if items == nil || items.Value == nil {
			continue
		}
		entry, _ := mergedProps(items.Value, 0)
		if (RefName(items) != "" && RefName(items) == RefName(item)) || entry[key] != nil {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

// createRequired are the fields a create's request body requires, as
// the dialect reads them (a form's PascalCase names as snake_case), so
// a create without one is refused as the provider refuses it; sorted.
func createRequired(op *openapi3.Operation, env string) []string {
	s, mt := requestSchema(op, env)
	if s == nil {
		return nil
	}
	_, req := mergedProps(s.Value, 0)
	var out []string
	for _, k := range req {
		if mt != "application/json" {
			k = rest.Snake(k)
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
