package compiled

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
)

// Honest is how a declared route's template answers under the not_found
// policy (SPEC §13, honest templates): what of the session its path names,
// and what the template is. A template is a sample the description or a
// recording gave; the session never made it, so an agent must not read
// from it that an entity exists, that a collection holds entries, or that
// a write it sent was carried out. Everything here is decided once, from
// the twin's routes and resources; the engine only looks the names up in
// the session.
type Honest struct {
	// Names are the entities of the session the path names, outermost
	// first: each must be in the session, else the answer is the
	// provider's not-found.
	Names []Named
	// Unmodelled is the first path parameter that names an entity no
	// resource of the twin models ("release_id"): the session cannot
	// hold one, so a request naming it is answered not-found. "" for
	// none.
	Unmodelled string
	// Object is what the provider's not-found shape calls Unmodelled's
	// entity ({object}): the parameter's name without an _id or _number,
	// or for a bare {id} the path segment before it.
	Object string
	// Write says the route changes what it names (any method but GET
	// and HEAD).
	Write bool
	// Safe is format.Route's Safe: the template is true whatever was
	// sent, so a write answers it.
	Safe bool
	// Check says the route answers a fact with a bodiless 204 ("is this
	// pull request merged", "do I follow this user", 404 for no): a fact
	// the twin does not keep, so the session's answer is no.
	Check bool
	// Done, for a Check at the path of one of its entity's actions
	// (GET .../pulls/{n}/merge beside PUT .../pulls/{n}/merge), is what
	// that action sets to literal values: the check's answer is yes when
	// the entity holds them all (Done's When). Nil for any other check.
	Done *Rule
	// Member, for a list at the path of one of its entity's members
	// (GET .../issues/{n}/labels beside the POST that adds labels), is
	// the field of the entity that holds them: the list is that field's
	// entries. "" for any other list.
	Member string
	// List is how the template lists a collection the twin cannot
	// model; ListNone when it does not.
	List ListShape
	// Empty is a ListEnvelope route's answer: its template with the
	// page member emptied and its counts zero.
	Empty []byte
}

// Named is an entity a route's path names: a resource, and for each of
// the parameters that address it in its own item path, the parameter of
// the route at that place.
type Named struct {
	Resource *Resource
	Params   map[string]string // the resource's item parameter -> the route's
}

// ListShape is how a template lists a collection.
type ListShape int

const (
	ListNone     ListShape = iota
	ListArray              // a bare JSON array
	ListDialect            // the dialect's own list envelope (Dialect.ListField)
	ListEnvelope           // an object whose format.Route.ListKey member is the page
)

// honestOf decides how the declared route rt answers under the not_found
// policy, given the twin's resources.
func honestOf(rt *format.Route, tmpl *Recorded, resources []itemPath, d dialect.Dialect) (*Honest, error) {
	h := &Honest{Write: rt.Method != http.MethodGet && rt.Method != http.MethodHead, Safe: rt.Safe}
	segs := strings.Split(strings.TrimPrefix(rt.Path, "/"), "/")
	bound := 0 // segments of the path the deepest named resource's item accounts for
	owner, n := deepestItem(segs, resources)
	if owner != nil {
		h.Names = append(h.Names, Named{Resource: owner.res, Params: owner.params})
		bound = n
	}
	for _, seg := range segs[bound:] {
		p, ok := paramName(seg)
		if !ok {
			continue
		}
		if r := byIDNamed(p, resources); r != nil {
			h.Names = append(h.Names, Named{Resource: r, Params: map[string]string{"id": p}})
			continue
		}
		h.Unmodelled, h.Object = p, objectName(segs, p)
		break
	}
	if tmpl != nil && !h.Write {
		h.Check = tmpl.Status == http.StatusNoContent && len(tmpl.Body) == 0
		if h.Check && owner != nil && h.Unmodelled == "" && len(segs) == bound+1 {
			h.Done = doneBy(owner.res, segs[bound])
		}
		var err error
		if h.List, h.Empty, err = listShape(rt, tmpl.Body, d); err != nil {
			return nil, err
		}
		if (h.List == ListArray || h.List == ListDialect) && owner != nil && h.Unmodelled == "" && len(segs) == bound+1 {
			h.Member = memberField(owner.res, segs[bound])
		}
	}
	return h, nil
}

// itemPath is a resource and its item path, split in segments.
type itemPath struct {
	res  *Resource
	segs []string
}

// itemPaths are the twin's resources' item paths, in twin.toml's order.
func itemPaths(spec []format.Resource, resources map[string]*Resource) []itemPath {
	out := make([]itemPath, 0, len(spec))
	for i := range spec {
		out = append(out, itemPath{res: resources[spec[i].Name], segs: strings.Split(strings.TrimPrefix(spec[i].Item, "/"), "/")})
	}
	return out
}

// item is a resource whose item path a route's path lies under.
type item struct {
	res    *Resource
	params map[string]string
}

// deepestItem is the resource whose item path is the longest prefix of
// segs, parameters matched by position (/v1/customers/{customer}/discount
// lies under /v1/customers/{id}), and the number of segments it spans.
// An item path that ends in a rest parameter ({ref...}) has nothing
// under it.
func deepestItem(segs []string, resources []itemPath) (*item, int) {
	var best *item
	n := 0
	for _, ip := range resources {
		r, isegs := ip.res, ip.segs
		if len(isegs) <= n || len(isegs) > len(segs) {
			continue
		}
		params := map[string]string{}
		ok := true
		for i, is := range isegs {
			ip, iParam := paramName(is)
			rp, rParam := paramName(segs[i])
			switch {
			case iParam && strings.HasSuffix(is, "...}"):
				ok = false
			case iParam && rParam:
				params[ip] = rp
			case iParam || rParam || is != segs[i]:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok {
			best, n = &item{res: r, params: params}, len(isegs)
		}
	}
	return best, n
}

// byIDNamed is the one resource stored under its id alone that a path
// parameter names ({refund} is the refund, {authorization} the
// issuing.authorization); nil when none or several do.
func byIDNamed(param string, resources []itemPath) *Resource {
	var found *Resource
	for _, ip := range resources {
		r := ip.res
		if r.Keys.Keyed {
			continue
		}
		name := r.Name[strings.LastIndexByte(r.Name, '.')+1:]
		if name != param {
			continue
		}
		if found != nil {
			return nil
		}
		found = r
	}
	return found
}

// doneBy is what the action name of r sets to literal values in its
// first rule, as a rule's conditions; nil when r has no such action or
// it sets no literal.
func doneBy(r *Resource, name string) *Rule {
	for _, a := range r.Actions {
		if a.Name != name || len(a.Rules) == 0 {
			continue
		}
		var done []Cond
		for _, as := range a.Rules[0].Set {
			if as.Expr == nil {
				done = append(done, Cond{Field: as.Field, Want: valueText(as.Value)})
			}
		}
		if done == nil {
			return nil
		}
		return &Rule{When: done}
	}
	return nil
}

// memberField is the field that holds r's member at path, or "".
func memberField(r *Resource, path string) string {
	for _, m := range r.Keys.Members {
		if m.Name == path {
			return m.Field
		}
	}
	return ""
}

// objectName is how a not-found answer names the entity of the path
// parameter p: "mandate" for {mandate}, "release" for {release_id},
// "bank_accounts" for the {id2} of /v1/accounts/{id}/bank_accounts/{id2}.
func objectName(segs []string, p string) string {
	name := strings.TrimSuffix(strings.TrimSuffix(p, "_id"), "_number")
	if strings.TrimRight(name, "0123456789") != "id" {
		return name
	}
	for i, seg := range segs {
		if name, _ := paramName(seg); name == p && i > 0 {
			if _, isParam := paramName(segs[i-1]); !isParam {
				return segs[i-1]
			}
		}
	}
	return name
}

// paramName is the name of a path segment's parameter, {name} or a
// rest parameter's {name...}.
func paramName(seg string) (string, bool) {
	if len(seg) < 3 || seg[0] != '{' || !strings.HasSuffix(seg, "}") {
		return "", false
	}
	return strings.TrimSuffix(seg[1:len(seg)-1], "..."), true
}

// listShape says whether a GET template lists a collection: a bare array,
// the dialect's list envelope, or an object whose list_key member is the
// page. For the last it is the answer an empty list gets.
func listShape(rt *format.Route, body []byte, d dialect.Dialect) (ListShape, []byte, error) {
	if len(body) == 0 {
		if rt.ListKey != "" {
			return ListNone, nil, fmt.Errorf("route %s %s: list_key %q needs a body whose member it names", rt.Method, rt.Path, rt.ListKey)
		}
		return ListNone, nil, nil
	}
	if body[0] == '[' {
		return ListArray, nil, nil
	}
	o, err := object.Parse(body)
	if err != nil {
		return ListNone, nil, nil // an answer that is no object lists nothing
	}
	if rt.ListKey == "" {
		if _, _, ok := d.ListField(o); ok {
			return ListDialect, nil, nil
		}
		return ListNone, nil, nil
	}
	if v, _ := o.Get(rt.ListKey); v == nil {
		return ListNone, nil, fmt.Errorf("route %s %s: list_key %q is no member of its body: name the member that holds the page", rt.Method, rt.Path, rt.ListKey)
	} else if _, isArray := v.([]any); !isArray {
		return ListNone, nil, fmt.Errorf("route %s %s: list_key %q is no array in its body: name the member that holds the page", rt.Method, rt.Path, rt.ListKey)
	}
	empty := o.Clone()
	empty.Set(rt.ListKey, []any{})
	for i, k := range empty.Keys() {
		// An empty page's counts are zero: the template's are its
		// sample's.
		if _, isNumber := empty.Values()[i].(json.Number); isNumber && (k == "count" || strings.HasSuffix(k, "_count")) {
			empty.Set(k, json.Number("0"))
		}
	}
	return ListEnvelope, empty.AppendJSON(nil), nil
}

// compileHonest decides, for every declared route no resource serves,
// how it answers under the not_found policy. It runs once the recordings
// are compiled: a declared route without a body takes its template from
// them.
func (c *compiler) compileHonest(resources map[string]*Resource) error {
	items := itemPaths(c.src.Manifest.Resources, resources)
	for i := range c.src.Manifest.Routes {
		rt := &c.src.Manifest.Routes[i]
		// A route template is a path its own route matches.
		m, ok := c.out.Router.Match(rt.Method, rt.Path)
		if !ok || m.Template != rt.Path || m.Value.Kind != KindPlain {
			continue
		}
		h, err := honestOf(rt, m.Value.Template, items, c.opts.Dialect)
		if err != nil {
			return fmt.Errorf("twin %s: %w", c.src.Name(), err)
		}
		m.Value.Honest = h
	}
	return nil
}
