package format

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Placeholders are the names an answer body or deleted body may use.
var Placeholders = []string{"id", "object", "status", "param", "action", "message"}

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
		q, _ := json.Marshal(v)
		b.Write(q[1 : len(q)-1])
		tmpl = tmpl[i+j+1:]
	}
	b.WriteString(tmpl)
	return b.String()
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
	validateAnswer(m.Errors.Idempotency, "errors.idempotency", probs, file)
	validateAnswer(m.Errors.RateLimited, "errors.rate_limited", probs, file)
	validateAnswer(m.Errors.UnexpectedState, "errors.unexpected_state", probs, file)
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
		if !strings.HasPrefix(r.Collection, "/") {
			probs.addf("%s: collection %q must be a path starting with /", at, r.Collection)
		}
		if !strings.HasPrefix(r.Item, r.Collection+"/") || !strings.HasSuffix(r.Item, "/{id}") {
			probs.addf("%s: item %q must be the collection path followed by /{id}", at, r.Item)
		}
		if r.IDPrefix == "" {
			probs.addf("%s: id_prefix is required (e.g. \"cus_\")", at)
		}
		if r.Skeleton == "" {
			probs.addf("%s: skeleton is required (the JSON of a newly created object)", at)
		} else {
			var obj map[string]any
			if err := json.Unmarshal([]byte(r.Skeleton), &obj); err != nil {
				probs.addf("%s: skeleton is not a JSON object: %v", at, err)
			}
		}
		switch r.Delete {
		case "", "not_found", "none":
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
}

// validateRouteBody checks a route's optional response shape.
func validateRouteBody(r Route, at string, probs *Problems) {
	if r.Status != 0 && (r.Status < 100 || r.Status > 599) {
		probs.addf("%s: status %d is not an HTTP status", at, r.Status)
	}
	if r.Body != "" && !json.Valid([]byte(r.Body)) {
		probs.addf("%s: body is not valid JSON (it is the route's response shape)", at)
	}
}

func validateRules(rules []Rule, at string, probs *Problems) {
	for i, r := range rules {
		for k, v := range r.Set {
			s, ok := v.(string)
			if !ok || !strings.HasPrefix(s, "$") || strings.HasPrefix(s, "$$") {
				continue
			}
			if _, err := ParseExpr(s); err != nil {
				probs.addf("%s rules[%d].set.%s: %v", at, i, k, err)
			}
		}
	}
}
