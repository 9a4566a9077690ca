package engine

import (
	"strings"

	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
)

// baseURL is where the client reached the provider's API: the scheme and
// host the request was sent to, and the /__s/{session} prefix when the
// path named the session, for computed fields ({base}) and Link headers.
// Without the prefix, a client that follows a link would leave its session.
func (req *request) baseURL() string {
	scheme := "http://"
	if req.tls {
		scheme = "https://"
	}
	return scheme + req.host + req.prefix
}

// compute sets the computed fields of o.
func (e *Engine) compute(res *compiled.Resource, o *object.Object, scope []string, req *request) {
	x := res.Keys
	for _, c := range x.Computed {
		v := fillComputed(c.Template, func(name string) string {
			if name == "base" {
				return req.baseURL()
			}
			for i, p := range x.Parents {
				if p == name {
					return scope[i]
				}
			}
			fv, _ := o.Get(name)
			if s := compiled.KeyText(fv); s != "" {
				return s
			}
			return valueText(fv)
		})
		setPath(o, c.Path, v)
	}
}

func fillComputed(tmpl string, val func(string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl, '}')
		if i < 0 || j < i {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		b.WriteString(val(tmpl[i+1 : j]))
		tmpl = tmpl[j+1:]
	}
}

// setPath sets a dotted field, making the objects on its way.
func setPath(o *object.Object, path []string, v any) {
	for _, f := range path[:len(path)-1] {
		cur, _ := o.Get(f)
		next, ok := cur.(*object.Object)
		if !ok {
			next = object.New(1)
			o.Set(f, next)
		}
		o = next
	}
	o.Set(path[len(path)-1], v)
}

// valueText is a value's compact JSON text, for comparisons.
func valueText(v any) string {
	return string(object.AppendValue(nil, v))
}
