package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Placeholders are the names an answer body or deleted body may use.
var Placeholders = []string{"id", "object", "status", "param", "action", "message", "resource", "code", "decline_code", "doc_url"}

// Fill replaces {name} placeholders in a body template. Values are inserted
// JSON-escaped, without quotes, so templates put them inside strings.
func Fill(tmpl string, vals map[string]string) string {
	if !strings.Contains(tmpl, "{") {
		return tmpl
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			break
		}
		name := tmpl[i+1 : i+j]
		v, ok := vals[name]
		if !ok || !isPlaceholder(name) {
			b.WriteString(tmpl[:i+1])
			tmpl = tmpl[i+1:]
			continue
		}
		b.WriteString(tmpl[:i])
		writeJSONText(&b, v)
		tmpl = tmpl[i+j+1:]
	}
	b.WriteString(tmpl)
	return b.String()
}

// writeJSONText writes v as the inside of a JSON string, escaping what
// JSON needs and nothing more: a provider's sentence shows Ruby's => and
// a <tag> as they are, as the provider's answer does.
func writeJSONText(b *strings.Builder, v string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	q := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	b.Write(q[1 : len(q)-1])
}

func isPlaceholder(name string) bool {
	for _, p := range Placeholders {
		if p == name {
			return true
		}
	}
	return false
}

func sampleFill(tmpl string) string {
	vals := map[string]string{}
	for _, p := range Placeholders {
		vals[p] = "x"
	}
	return Fill(tmpl, vals)
}

func validateAnswer(a *Answer, field string, probs *Problems, file string) {
	if a == nil {
		return
	}
	if a.Status < 100 || a.Status > 599 {
		probs.addf("%s: %s.status %d is not an HTTP status", file, field, a.Status)
	}
	if !json.Valid([]byte(sampleFill(a.Body))) {
		probs.addf("%s: %s.body is not valid JSON (placeholders {id} {object} {status} {param} {action} {message} go inside strings)", file, field)
	}
}

func validateManifest(m *Manifest, file string, probs *Problems) {
	if m.Format != Version {
		probs.addf("%s: format is %d, want %d (add `format = %d`)", file, m.Format, Version, Version)
	}
	if !ValidName(m.Name) {
		probs.addf("%s: name %q must match %s", file, m.Name, NamePattern)
	}
	validateAnswer(m.Errors.NotFound, "errors.not_found", probs, file)
	validateAnswer(m.Errors.InvalidRequest, "errors.invalid_request", probs, file)
	validateAnswer(m.Errors.Validation, "errors.validation", probs, file)
	validateAnswer(m.Errors.Idempotency, "errors.idempotency", probs, file)
	validateAnswer(m.Errors.RateLimited, "errors.rate_limited", probs, file)
	validateAnswer(m.Errors.UnexpectedState, "errors.unexpected_state", probs, file)
	if m.Dialect != "" && !ValidName(m.Dialect) {
		probs.addf("%s: dialect %q is not a dialect name (stripe, github or rest)", file, m.Dialect)
	}
	for i, imp := range m.Fixtures.Imports {
		if !ValidName(imp) {
			probs.addf("%s: fixtures.imports[%d] %q is not a twin name", file, i, imp)
		}
	}
	for i, r := range m.Routes {
		if !validMethod(r.Method) || !strings.HasPrefix(r.Path, "/") {
			probs.addf("%s: routes[%d]: want method (GET, POST, ...) and a path starting with /", file, i)
		}
		validateRouteBody(r, fmt.Sprintf("%s: routes[%d] (%s %s)", file, i, r.Method, r.Path), probs)
	}
	seen := map[string]bool{}
	for i, r := range m.Resources {
		at := fmt.Sprintf("%s: resources[%d] (%s)", file, i, r.Name)
		if r.Name == "" {
			probs.addf("%s: name is required (the provider's object type)", at)
		}
		if seen[r.Name] {
			probs.addf("%s: resource %q is declared twice", at, r.Name)
		}
		seen[r.Name] = true
		var skel map[string]any
		if r.Skeleton == "" {
			probs.addf("%s: skeleton is required (the JSON of a newly created object)", at)
		} else if skel = skeletonFields(r.Skeleton); skel == nil {
			var obj map[string]any
			err := json.Unmarshal([]byte(r.Skeleton), &obj)
			probs.addf("%s: skeleton is not a JSON object: %v", at, err)
		}
		validateKeys(&m.Resources[i], skel, at, probs)
		validateOmit(&m.Resources[i], at, probs)
		validateEvents(&m.Resources[i], at, probs)
		switch r.Delete {
		case "", "not_found", "none":
			if r.DeletedBody != "" && !json.Valid([]byte(sampleFill(r.DeletedBody))) {
				probs.addf("%s: deleted_body is not JSON: write the 200 answer of a delete, a JSON object with {id}", at)
			}
		case "tombstone":
			if !json.Valid([]byte(sampleFill(r.DeletedBody))) {
				probs.addf("%s: delete = \"tombstone\" needs deleted_body, a JSON object with {id}", at)
			}
		case "action":
			if r.OnDelete == nil {
				probs.addf("%s: delete = \"action\" needs [resources.on_delete], the transition DELETE runs", at)
			}
		default:
			probs.addf("%s: delete %q: want \"not_found\", \"tombstone\", \"none\" or \"action\"", at, r.Delete)
		}
		if r.OnDelete != nil {
			if r.Delete != "action" {
				probs.addf("%s: on_delete needs delete = \"action\"", at)
			}
			validateRules(r.OnDelete.Rules, at+" on_delete", probs)
		}
		for _, m := range r.Update {
			if m != "POST" && m != "PUT" && m != "PATCH" {
				probs.addf("%s: update method %q: want POST, PUT or PATCH", at, m)
			}
		}
		validateAnswer(r.NotFound, "not_found", probs, at)
		validateRules(r.Create, at+" create", probs)
		for j, a := range r.Actions {
			aat := fmt.Sprintf("%s actions[%d] (%s)", at, j, a.Name)
			if a.Name == "" || strings.ContainsAny(a.Name, "/{}") {
				probs.addf("%s: name must be one path segment", aat)
			}
			validateRules(a.Rules, aat, probs)
		}
	}
	validateShared(m.Resources, file, probs)
	validateNested(m.Resources, file, probs)
	validateFaults(m, file, probs)
}

// validateShared checks what resources say about each other: members name
// a resource that has a key, and resources sharing a counter share their
// parents (the counter is kept per parent scope).
func validateShared(resources []Resource, file string, probs *Problems) {
	byName := map[string]*Resource{}
	for i := range resources {
		byName[resources[i].Name] = &resources[i]
	}
	counters := map[string]*Resource{}
	for i := range resources {
		r := &resources[i]
		for _, mem := range r.Members {
			if mr := byName[mem.Resource]; mem.Resource != "" && mr == nil {
				probs.addf("%s: resources[%d] (%s) members (%s): resource %q is not declared", file, i, r.Name, mem.Path, mem.Resource)
			}
		}
		if r.Counter == "" {
			continue
		}
		if first := counters[r.Counter]; first != nil && strings.Join(first.Parents, "/") != strings.Join(r.Parents, "/") {
			probs.addf("%s: resources[%d] (%s): counter %q is shared with %s, whose parents %q differ from %q: a counter is kept per parent scope, so give both the same parents",
				file, i, r.Name, r.Counter, first.Name, first.Parents, r.Parents)
		} else if first == nil {
			counters[r.Counter] = r
		}
	}
}

// validateRouteBody checks a route's optional response shape.
func validateRouteBody(r Route, at string, probs *Problems) {
	if r.Status != 0 && (r.Status < 100 || r.Status > 599) {
		probs.addf("%s: status %d is not an HTTP status", at, r.Status)
	}
	if r.Body != "" && r.ContentType == "" && !json.Valid([]byte(r.Body)) {
		probs.addf("%s: body is not valid JSON (it is the route's response shape; a body of another media type needs content_type)", at)
	}
}

func validateRules(rules []Rule, at string, probs *Problems) {
	for i, r := range rules {
		for k, v := range r.Set {
			s, ok := v.(string)
			if !ok || !strings.HasPrefix(s, "$") || strings.HasPrefix(s, "$$") {
				continue
			}
			if x, err := ParseExpr(s); err != nil {
				probs.addf("%s rules[%d].set.%s: %v", at, i, k, err)
			} else if x.IDPrefix != "" {
				probs.addf("%s rules[%d].set.%s: %q: $id:PREFIX makes the id of a nested object and belongs in nested_defaults", at, i, k, s)
			}
		}
	}
}
