package format

import "strings"

// Operation is one route a resource answers.
type Operation struct {
	Method string
	Path   string
	// Op is "list", "search", "create", "retrieve", "update", "delete",
	// "action" or "member".
	Op string
	// Name is the action's or member's name.
	Name string
}

// Operations lists the routes a resource answers, in a fixed order. The
// engine serves them and inspect shows them: this is the one place that
// says which routes a resource has.
func (r *Resource) Operations() []Operation {
	var ops []Operation
	add := func(method, path, op, name string) {
		ops = append(ops, Operation{Method: method, Path: path, Op: op, Name: name})
	}
	// Omit names what the collection and item paths lack; the list and
	// create paths a resource declares beside them are its own (Stripe's
	// sources are listed under a customer only).
	if r.Collection != "" {
		if !r.Omits("list") {
			add("GET", r.Collection, "list", "")
		}
		if !r.Omits("create") {
			add("POST", r.Collection, "create", "")
		}
	}
	for _, p := range r.ListPaths {
		add("GET", p, "list", "")
	}
	for _, p := range r.CreatePaths {
		add("POST", p, "create", "")
	}
	for _, p := range r.SearchPaths {
		add("GET", p, "search", "")
	}
	add("GET", r.Item, "retrieve", "")
	for _, p := range r.ReadPaths {
		add("GET", p, "retrieve", "")
	}
	if !r.Omits("update") {
		for _, m := range r.UpdateMethods() {
			add(m, r.Item, "update", "")
		}
	}
	if r.DeleteMode() != "none" {
		add("DELETE", r.Item, "delete", "")
	}
	for _, a := range r.Actions {
		m := a.Method
		if m == "" {
			m = "POST"
		}
		add(m, r.Item+"/"+a.Name, "action", a.Name)
	}
	for _, m := range r.Members {
		add("POST", r.Item+"/"+m.Path, "member", m.Path)
	}
	return ops
}

// UpdateMethods are the methods that update an item; POST by default.
func (r *Resource) UpdateMethods() []string {
	if len(r.Update) == 0 {
		return []string{"POST"}
	}
	return append([]string{}, r.Update...)
}

// DeleteMode is the resource's delete mode; "not_found" by default.
func (r *Resource) DeleteMode() string {
	if r.Delete == "" {
		return "not_found"
	}
	return r.Delete
}

// EnvelopeURL is the "url" of the resource's list envelope: ListURL, or
// the collection path by default.
func (r *Resource) EnvelopeURL() string {
	if r.ListURL == "" {
		return r.Collection
	}
	return r.ListURL
}

// KeyField is the field the item path's last parameter names.
func (r *Resource) KeyField() string {
	if r.Key == "" {
		return "id"
	}
	return r.Key
}

// Keyed reports whether the resource uses any field of Keys that changes
// how its entities are addressed: a key other than id, or parents. Such
// entities are stored under an address built from their path (see
// docs/twin-format.md), not under their id.
func (r *Resource) Keyed() bool {
	return r.KeyField() != "id" || len(r.Parents) > 0
}

// PathParams returns the parameter names of a path template in order,
// whole segments and those followed by text ({Sid}.json) alike; a rest
// parameter {name...} is returned without its dots.
func PathParams(path string) []string {
	var out []string
	for _, seg := range strings.Split(path, "/") {
		if name, _ := segmentParam(seg); name != "" {
			out = append(out, strings.TrimSuffix(name, "..."))
		}
	}
	return out
}
