//go:build panel

package panel_test

import (
	"fmt"
	"github.com/getkin/kin-openapi/openapi3"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect/rest"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// flow runs one resource's create, read, list, update and delete in
// session a, and checks that session b sees none of it. Each step the
// resource has counts; one it omits does not.
func flow(c *client, res *format.Resource) {
	omit := map[string]bool{}
	for _, o := range res.Omit {
		omit[o] = true
	}
	if res.Collection == "" || omit["create"] {
		return
	}
	step := func(name string, ok bool, why string) {
		c.row.flowSteps++
		if ok {
			c.row.flowPass++
			return
		}
		c.row.failures = append(c.row.failures, fmt.Sprintf("flow %s %s: %s", res.Name, name, why))
	}
	key := res.KeyField()
	mark := "panel-" + res.Name
	createOp := c.opFor("POST", res.Collection)
	body := requestBody(createOp, res.ItemEnvelope, 2, mark)
	if body == nil {
		body = map[string]any{}
	}
	coll := c.fill(res.Collection, createOp, "")
	listOp := c.opFor("GET", res.Collection)
	// A list or delete that requires a query parameter (Box lists a
	// folder's policies by folder_id) is sent with it, as the sweep does.
	listed := withQuery(coll, listOp)
	a := c.send("a", "POST", coll, createOp, wrap(createOp, body, res.ItemEnvelope))
	obj := entity(a.json, res.ItemEnvelope)
	id := ""
	if obj != nil {
		id = scalar(obj[key])
	}
	if a.status/100 != 2 || id == "" {
		step("create", false, fmt.Sprintf("POST %s: want 2xx with a %s, have %s", coll, key, a))
		return
	}
	fields := answerFields(c.opFor("GET", res.Item), res.ItemEnvelope)
	// A create that answers a stub (Jira's {id, key, self}) echoes what
	// its own answer has a field for.
	step("create", echoes(obj, body, both(fields, answerFields(createOp, res.ItemEnvelope))), fmt.Sprintf("POST %s: want what was sent echoed (%v), have %s", coll, body, a))
	readOp := c.opFor("GET", res.Item)
	item := c.fill(res.Item, readOp, id)
	a = c.send("a", "GET", item, readOp, nil)
	read := entity(a.json, res.ItemEnvelope)
	step("read", a.status == 200 && read != nil && scalar(read[key]) == id && echoes(read, body, fields), fmt.Sprintf("GET %s: want 200 with what was created, have %s", item, a))
	if !omit["list"] {
		a = c.send("a", "GET", listed, listOp, nil)
		step("list", a.status == 200 && holds(a.json, key, id), fmt.Sprintf("GET %s: want a list holding %s, have %s", listed, id, a))
		a = c.send("b", "GET", listed, listOp, nil)
		step("list in another session", a.status/100 == 2 && !holds(a.json, key, id), fmt.Sprintf("GET %s in session b: want a list without %s, have %s", listed, id, a))
	}
	// Not found is a 404, or the status the resource's read declares
	// for it instead (Jira's filter: 400), which its twin answers.
	notFound := 404
	if res.NotFound != nil {
		notFound = res.NotFound.Status
	}
	a = c.send("b", "GET", item, readOp, nil)
	step("read in another session", a.status == notFound, fmt.Sprintf("GET %s in session b: want %d, have %s", item, notFound, a))
	if !omit["update"] {
		method := res.UpdateMethods()[0]
		upOp := c.opFor(method, res.Item)
		changed := requestBody(upOp, res.ItemEnvelope, 1, mark+"-updated")
		if _, ok := changed[key]; ok {
			// An update body that names the entity (Jira's PUT of a field
			// option requires its id) names it as an SDK would.
			changed[key] = obj[key]
		}
		if len(changed) > 0 {
			a = c.send("a", method, item, upOp, wrap(upOp, changed, res.ItemEnvelope))
			ok := a.status/100 == 2
			a = c.send("a", "GET", item, readOp, nil)
			read := entity(a.json, res.ItemEnvelope)
			merged := map[string]any{}
			for k, v := range body {
				merged[k] = v
			}
			for k, v := range changed {
				merged[k] = v
			}
			step("update", ok && read != nil && echoes(read, merged, fields), fmt.Sprintf("%s %s %v then GET: want the change merged into %v, have %s", method, item, changed, body, a))
		}
	}
	if res.DeleteMode() != "none" {
		delOp := c.opFor("DELETE", res.Item)
		deleted := withQuery(item, delOp)
		a = c.send("a", "DELETE", deleted, delOp, nil)
		step("delete", a.status/100 == 2, fmt.Sprintf("DELETE %s: want 2xx, have %s", deleted, a))
		a = c.send("a", "GET", item, readOp, nil)
		step("read after delete", a.status == notFound, fmt.Sprintf("GET %s after delete: want %d, have %s", item, notFound, a))
	}
}

// echoes reports whether obj holds every scalar that was sent, equal as
// text (a form sends every value as a string), under the name sent or,
// as form-encoding APIs answer a PascalCase name, its snake_case form.
// A name the answer's schema has no field for is not the entity's and
// is not looked for, nor is a value the field's schema refuses as sent
// (Asana's project followers, sent as a string of gids and answered as
// a list of users; Box's policy scope "enterprise", whose answer's enum
// is "enterprise_*"): the twin keeps a value of the answer's schema
// there instead (docs/import.md), as the provider answers another.
func echoes(obj, sent map[string]any, fields map[string]*openapi3.SchemaRef) bool {
	for k, v := range sent {
		switch v.(type) {
		case map[string]any, []any:
			continue
		}
		name := k
		if fields[name] == nil {
			name = snakeCase(k)
		}
		f := fields[name]
		if f == nil || refuses(f, v) {
			continue
		}
		if scalar(obj[name]) != scalar(v) && !names(obj[name], scalar(v)) {
			return false
		}
	}
	return true
}

// names reports whether an answer's object is the one a string sent for
// it named by one of its keys (Asana's assignee: "123" answers {"gid":
// "123"}; DigitalOcean's image slug answers {"id": 7555620, "slug": ...}).
func names(v any, key string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range rest.KeyNames {
		if id, ok := m[k]; ok && scalar(id) == key {
			return true
		}
	}
	return false
}

// snakeCase is FriendlyName's friendly_name.
func snakeCase(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			if i > 0 && (!('A' <= s[i-1] && s[i-1] <= 'Z') || (i+1 < len(s) && 'a' <= s[i+1] && s[i+1] <= 'z')) {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// answerFields are the properties of an operation's success answer.
func answerFields(op *openapi.Operation, env string) map[string]*openapi3.SchemaRef {
	out := map[string]*openapi3.SchemaRef{}
	if op == nil {
		return out
	}
	if _, s, _ := openapi.Success(op.Op); s != nil && s.Value != nil {
		props, _ := properties(s.Value, 0)
		if inner := props[env]; env != "" && inner != nil && inner.Value != nil {
			props, _ = properties(inner.Value, 0)
		}
		for k, p := range props {
			// A write-only field is sent, never answered.
			if p.Value == nil || !p.Value.WriteOnly {
				out[k] = p
			}
		}
	}
	return out
}

// both are the fields in a and in b.
func both(a, b map[string]*openapi3.SchemaRef) map[string]*openapi3.SchemaRef {
	out := map[string]*openapi3.SchemaRef{}
	for k, v := range a {
		if b[k] != nil {
			out[k] = v
		}
	}
	return out
}

// refuses reports whether a scalar sent for a field of schema f is
// neither a value f takes nor, for an object, the key it is named by.
func refuses(f *openapi3.SchemaRef, v any) bool {
	if f.Value == nil || f.Value.VisitJSON(v) == nil {
		return false
	}
	if _, isString := v.(string); isString && (f.Value.Type.Is("object") || len(f.Value.Properties) > 0 || len(f.Value.AllOf) > 0 || len(f.Value.OneOf) > 0 || len(f.Value.AnyOf) > 0) {
		return false // a reference by its key: names checks it
	}
	return true
}

// holds reports whether a list answer (a bare array, or an object with
// an array member) has an object whose key is id.
func holds(v any, key, id string) bool {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if m, ok := e.(map[string]any); ok && scalar(m[key]) == id {
				return true
			}
		}
	case map[string]any:
		for _, e := range t {
			if arr, ok := e.([]any); ok && holds(arr, key, id) {
				return true
			}
		}
	}
	return false
}

// wrap is a write's body in the resource's item envelope where op's
// request schema has it, as its SDK sends it (Asana's {"data": {...}};
// Directus answers in one, and is sent bare); entity is an answer's
// entity, out of it.
func wrap(op *openapi.Operation, body map[string]any, env string) map[string]any {
	if env == "" || body == nil || !enveloped(op, env) {
		return body
	}
	return map[string]any{env: body}
}

// enveloped reports whether op's request schema is an envelope env: its
// member env is an object (DigitalOcean's CDN endpoint, whose envelope is
// endpoint, sends its endpoint, a host name, in a bare body).
func enveloped(op *openapi.Operation, env string) bool {
	s := requestSchema(op)
	if env == "" || s == nil || s.Value == nil {
		return false
	}
	props, _ := properties(s.Value, 0)
	inner := props[env]
	if inner == nil || inner.Value == nil {
		return false
	}
	t := inner.Value.Type
	return t == nil || t.Is("object")
}

func entity(v any, env string) map[string]any {
	m, _ := v.(map[string]any)
	if env != "" && m != nil {
		m, _ = m[env].(map[string]any)
	}
	return m
}

// withQuery is path with op's required query parameters.
func withQuery(path string, op *openapi.Operation) string {
	if op == nil {
		return path
	}
	if q := requiredQuery(op); q != "" {
		return path + "?" + q
	}
	return path
}

// fill puts values in a twin path template: the last parameter of an
// item is id; every other parameter a value of its schema in op.
func (c *client) fill(tmpl string, op *openapi.Operation, id string) string {
	segs := strings.Split(tmpl, "/")
	last := -1
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			last = i
		}
	}
	for i, s := range segs {
		o, cl := strings.IndexByte(s, '{'), strings.IndexByte(s, '}')
		if o < 0 || cl < o {
			continue
		}
		v := paramValue()
		if i == last && id != "" {
			v = id
		}
		segs[i] = s[:o] + v + s[cl+1:]
	}
	return strings.Join(segs, "/")
}

// paramValue is a path parameter's value that is not an item's id:
// "1", a string and an integer alike, the same for every parameter so
// that a parent named differently by two operations (the twin renames
// them) is one parent.
func paramValue() string { return "1" }
