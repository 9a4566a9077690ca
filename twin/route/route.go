// Package route matches request paths against route templates such as
// /v1/customers/{customer}/sources/{id}.
//
// Templates are compiled into a trie keyed by path segment, so matching
// costs one step per segment however many routes there are, and allocates
// nothing. The rules:
//
//   - A template starts with "/" and its segments are not empty, so
//     neither "//" nor a trailing "/" can appear; "/" alone is the root.
//   - A segment {name} matches exactly one non-empty segment; a name is
//     letters, digits and "_". A parameter may be followed by static text
//     in its segment, {name}suffix, which matches a segment ending in the
//     suffix with at least one byte before it (Twilio's
//     /Accounts/{Sid}.json); any other text around a parameter
//     (/files/x{id}, {a}-{b}) is an error. A template has at most
//     MaxParams. Templates sharing a one-segment parameter position may
//     name it differently (/v1/customers/{id} beside
//     /v1/customers/{customer}/tax_ids): names are kept per route, so a
//     match answers the names of the template it matched. A rest
//     parameter's position is named alike by every template.
//   - A last segment {name...} matches the rest of the path, one or more
//     segments with their slashes (GitHub's git refs: heads/main), or
//     nothing after a trailing slash (contents/, a repository's root). It is
//     tried after a static segment and a one-segment parameter at the
//     same depth.
//   - A static segment wins over a suffixed parameter, and that over a
//     plain parameter, at the same depth (the longest suffix first). When the
//     static branch leads nowhere (no template, or none for the method),
//     matching backtracks into the parameter, so /v1/customers/search and
//     /v1/customers/{customer} both work.
//   - Matching is byte for byte and case-sensitive, methods included. A
//     trailing slash is a segment of its own: /v1/customers/ does not match
//     /v1/customers.
//   - Paths are given decoded, as r.URL.Path holds them, and template
//     segments compare with them as written. A decoded "/" inside a value
//     therefore splits segments; IDs of the APIs we twin never hold one.
//
// A Router is built with Add and then only read: Match, PathKnown and
// Routes may be called from many goroutines at once without locks, but
// never concurrently with Add.
package route

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// MaxParams is the most parameters a template may have. Match keeps them in
// fixed arrays, which is what keeps it from allocating.
const MaxParams = 4

// Router maps a method and a path to the value added for the template
// that matches them.
type Router[V any] struct {
	root   node[V]
	routes []RouteInfo
}

// RouteInfo describes one added route.
type RouteInfo struct {
	Method   string
	Template string
}

// node is one segment position of the trie.
type node[V any] struct {
	segment string     // the static text matched, for a static child
	static  []*node[V] // sorted by segment
	param   *node[V]   // the child matching any one segment
	// suffixed are the children matching a segment that ends in their
	// segment text ({Sid}.json has ".json"), longest suffix first.
	suffixed []*node[V]
	rest     *node[V] // the child matching the rest of the path
	// name is the parameter's name, for a rest child, and from the
	// template that first named it (a param child's names are per entry).
	name, from string
	entries    []entry[V] // routes ending here, one per method
}

// entry is one route, stored where its template ends in the trie.
type entry[V any] struct {
	method, template string
	value            V
	n                int
	names            [MaxParams]string
}

// New returns an empty Router.
func New[V any]() *Router[V] {
	return &Router[V]{}
}

// Add adds the route method template, whose match yields v. It fails when
// the template is malformed or conflicts with one already added; the
// router is then as it was.
func (r *Router[V]) Add(method, template string, v V) error {
	if method == "" {
		return fmt.Errorf("route %q has no method", template)
	}
	segs, err := parseTemplate(template)
	if err != nil {
		return err
	}
	// Check for conflicts before changing anything.
	n := &r.root
	for i, s := range segs {
		switch {
		case s.rest && n.rest != nil && n.rest.name != s.text:
			return fmt.Errorf("template %q names the rest parameter at segment %d {%s...}, but template %q names it {%s...}: use one name",
				template, i+1, s.text, n.rest.from, n.rest.name)
		case s.rest:
			n = n.rest
		case !s.param:
			n = n.child(s.text)
		case s.suffix != "":
			n = n.suffixChild(s.suffix)
		default:
			n = n.param
		}
		if n == nil {
			break
		}
	}
	if n != nil && n.lookup(method) != nil {
		return fmt.Errorf("route %s %s is already added", method, template)
	}
	e := entry[V]{method: method, template: template, value: v}
	n = &r.root
	for _, s := range segs {
		if !s.param {
			n = n.addChild(s.text)
			continue
		}
		if s.rest {
			if n.rest == nil {
				n.rest = &node[V]{name: s.text, from: template}
			}
			e.names[e.n] = s.text
			e.n++
			n = n.rest
			continue
		}
		e.names[e.n] = s.text
		e.n++
		if s.suffix != "" {
			n = n.addSuffix(s.suffix)
			continue
		}
		if n.param == nil {
			n.param = &node[V]{name: s.text, from: template}
		}
		n = n.param
	}
	n.entries = append(n.entries, e)
	r.routes = append(r.routes, RouteInfo{Method: method, Template: template})
	return nil
}

// Routes lists the added routes sorted by template, then method.
func (r *Router[V]) Routes() []RouteInfo {
	routes := slices.Clone(r.routes)
	slices.SortFunc(routes, func(a, b RouteInfo) int {
		if c := strings.Compare(a.Template, b.Template); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return routes
}

// child returns the static child for seg, or nil.
func (n *node[V]) child(seg string) *node[V] {
	if len(n.static) < 8 {
		for _, c := range n.static {
			if c.segment == seg {
				return c
			}
		}
		return nil
	}
	i, ok := slices.BinarySearchFunc(n.static, seg, func(c *node[V], seg string) int {
		return strings.Compare(c.segment, seg)
	})
	if !ok {
		return nil
	}
	return n.static[i]
}

// addChild returns the static child for seg, adding it if needed.
func (n *node[V]) addChild(seg string) *node[V] {
	i, ok := slices.BinarySearchFunc(n.static, seg, func(c *node[V], seg string) int {
		return strings.Compare(c.segment, seg)
	})
	if !ok {
		n.static = slices.Insert(n.static, i, &node[V]{segment: seg})
	}
	return n.static[i]
}

// suffixChild returns the suffixed parameter child for suffix, or nil.
func (n *node[V]) suffixChild(suffix string) *node[V] {
	for _, c := range n.suffixed {
		if c.segment == suffix {
			return c
		}
	}
	return nil
}

// addSuffix returns the suffixed parameter child for suffix, adding it
// if needed, kept longest suffix first so that the most specific matches
// first (.json.gz before .gz).
func (n *node[V]) addSuffix(suffix string) *node[V] {
	if c := n.suffixChild(suffix); c != nil {
		return c
	}
	c := &node[V]{segment: suffix}
	i, _ := slices.BinarySearchFunc(n.suffixed, suffix, func(c *node[V], s string) int {
		if d := len(s) - len(c.segment); d != 0 {
			return d
		}
		return strings.Compare(c.segment, s)
	})
	n.suffixed = slices.Insert(n.suffixed, i, c)
	return c
}

// segment is one parsed template segment: static text, or a parameter's
// name and the static text after it in the segment.
type segment struct {
	text   string
	param  bool
	rest   bool   // {name...}: the rest of the path
	suffix string // {name}suffix: the text after the parameter
}

// parseTemplate splits a template into segments and checks it against the
// rules in the package comment.
func parseTemplate(template string) ([]segment, error) {
	if !strings.HasPrefix(template, "/") {
		return nil, fmt.Errorf("template %q does not start with %q", template, "/")
	}
	if template == "/" {
		return nil, nil
	}
	var segs []segment
	params := 0
	for i, text := range strings.Split(template[1:], "/") {
		if text == "" {
			return nil, fmt.Errorf("template %q has an empty segment %d: remove the extra or trailing %q", template, i+1, "/")
		}
		opening, closing := strings.IndexByte(text, '{'), strings.IndexByte(text, '}')
		if opening < 0 && closing < 0 {
			segs = append(segs, segment{text: text})
			continue
		}
		switch {
		case opening >= 0 && closing < 0:
			return nil, fmt.Errorf("template %q has an unclosed %q in segment %q", template, "{", text)
		case closing >= 0 && (opening < 0 || closing < opening):
			return nil, fmt.Errorf("template %q has an unmatched %q in segment %q", template, "}", text)
		case opening != 0 || strings.Count(text, "{") > 1 || strings.ContainsAny(text[closing+1:], "{}"):
			return nil, fmt.Errorf("template %q has a parameter that is not a whole segment nor followed only by static text: %q (want {name} or {name}suffix)", template, text)
		}
		name, suffix := text[1:closing], text[closing+1:]
		if suffix != "" && strings.HasSuffix(name, "...") {
			return nil, fmt.Errorf("template %q has a rest parameter followed by text: %q", template, text)
		}
		rest := false
		if n, ok := strings.CutSuffix(name, "..."); ok {
			if i != strings.Count(template, "/")-1 {
				return nil, fmt.Errorf("template %q has the rest parameter %q before its last segment: only the last segment may match the rest of the path", template, text)
			}
			name, rest = n, true
		}
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("template %q %w", template, err)
		}
		for _, s := range segs {
			if s.param && s.text == name {
				return nil, fmt.Errorf("template %q names two parameters {%s}", template, name)
			}
		}
		if params++; params > MaxParams {
			return nil, fmt.Errorf("template %q has more than %d parameters", template, MaxParams)
		}
		segs = append(segs, segment{text: name, param: true, rest: rest, suffix: suffix})
	}
	return segs, nil
}

// checkName checks a parameter name. Errors complete the sentence
// `template "t" ...`.
func checkName(name string) error {
	if name == "" {
		return errors.New("has an empty parameter name")
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return fmt.Errorf("has a parameter name %q with %q in it: use letters, digits and _", name, c)
		}
	}
	return nil
}
