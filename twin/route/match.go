package route

import (
	"iter"
	"strings"
)

// Match is the result of a successful Router.Match: the route's value and
// template, and the path's parameter values, held in arrays so that
// matching allocates nothing.
type Match[V any] struct {
	Value    V
	Template string

	n      int
	names  [MaxParams]string
	values [MaxParams]string
}

// Param returns the value of the parameter name, or "" when the template
// has no such parameter.
func (m *Match[V]) Param(name string) string {
	for i := range m.n {
		if m.names[i] == name {
			return m.values[i]
		}
	}
	return ""
}

// Params yields the parameters' names and values in template order.
func (m *Match[V]) Params() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for i := range m.n {
			if !yield(m.names[i], m.values[i]) {
				return
			}
		}
	}
}

// Match finds the route for method and path, a decoded path as in
// r.URL.Path. ok is false when there is none, whether no template matches
// the path or none matches with this method: PathKnown tells the two
// apart.
func (r *Router[V]) Match(method, path string) (m Match[V], ok bool) {
	var e *entry[V]
	switch {
	case method == "":
		// "" means any method inside the trie; no route has it.
	case path == "/":
		e = r.root.lookup(method)
	case strings.HasPrefix(path, "/"):
		e = r.root.match(method, path[1:], &m.values, 0)
	}
	if e == nil {
		return Match[V]{}, false
	}
	m.Value, m.Template, m.n, m.names = e.value, e.template, e.n, e.names
	return m, true
}

// PathKnown reports whether some route, of any method, matches path. A
// server uses it to answer 405 rather than 404 when Match fails.
func (r *Router[V]) PathKnown(path string) bool {
	var values [MaxParams]string
	switch {
	case path == "/":
		return r.root.lookup("") != nil
	case strings.HasPrefix(path, "/"):
		return r.root.match("", path[1:], &values, 0) != nil
	}
	return false
}

// match walks the trie from n for path, the rest of a path after a "/",
// recording parameter values from values[nv] on. An empty method accepts
// any route.
func (n *node[V]) match(method, path string, values *[MaxParams]string, nv int) *entry[V] {
	seg, rest, more := strings.Cut(path, "/")
	if c := n.child(seg); c != nil {
		if e := c.next(method, rest, more, values, nv); e != nil {
			return e
		}
	}
	for _, c := range n.suffixed {
		if v, ok := strings.CutSuffix(seg, c.segment); ok && v != "" {
			values[nv] = v
			if e := c.next(method, rest, more, values, nv+1); e != nil {
				return e
			}
		}
	}
	if n.param != nil && seg != "" {
		values[nv] = seg
		if e := n.param.next(method, rest, more, values, nv+1); e != nil {
			return e
		}
	}
	// A rest parameter takes one or more segments, or nothing at all
	// after a trailing slash: GitHub's clients ask for a repository's root
	// as contents/ (the path ""), which the provider answers.
	if n.rest != nil && (seg != "" || path == "") {
		values[nv] = path
		return n.rest.lookup(method)
	}
	return nil
}

// next continues a match at n, the node for the segment just matched.
// A path that ends where a rest parameter would begin (contents, with no
// slash after it) is that parameter empty, as GitHub answers
// /repos/{owner}/{repo}/contents for the repository's root, unless a
// route ends there itself.
func (n *node[V]) next(method, rest string, more bool, values *[MaxParams]string, nv int) *entry[V] {
	if !more {
		if e := n.lookup(method); e != nil || n.rest == nil {
			return e
		}
		values[nv] = ""
		return n.rest.lookup(method)
	}
	return n.match(method, rest, values, nv)
}

// lookup returns the route ending at n for method, or any route for "".
func (n *node[V]) lookup(method string) *entry[V] {
	for i := range n.entries {
		if method == "" || n.entries[i].method == method {
			return &n.entries[i]
		}
	}
	return nil
}
