//go:build panel

package panel_test

import (
	"fmt"
	"maps"
	"net/http"
	"sort"
	"strings"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// sweep sends every operation of the description once, in session
// "sweep", deletes last, and validates each answer that is not a route
// miss. A path parameter at a resource's item position is an entity the
// sweep created first, so reads find something; every other parameter is
// its example, or "1".
func sweep(c *client, resources []format.Resource) {
	ids := map[string]string{} // shape of an item path -> id
	for i := range resources {
		res := &resources[i]
		if res.Collection == "" {
			continue
		}
		op := c.opFor("POST", res.Collection)
		if op == nil {
			continue
		}
		body := requestBody(op, res.ItemEnvelope, 0, "")
		if body == nil {
			body = map[string]any{}
		}
		a := c.send("sweep", "POST", c.fill(res.Collection, op, ""), op, wrap(op, body, res.ItemEnvelope))
		if obj := entity(a.json, res.ItemEnvelope); obj != nil && a.status/100 == 2 {
			ids[shape(res.Item)] = scalar(obj[res.KeyField()])
		}
	}
	ops := openapi.OperationsOf(c.doc)
	var deletes []openapi.Operation
	for _, o := range ops {
		if o.Method == "DELETE" {
			deletes = append(deletes, o)
			continue
		}
		c.sweepOne(o, ids)
	}
	for _, o := range deletes {
		c.sweepOne(o, ids)
	}
}

func (c *client) sweepOne(o openapi.Operation, ids map[string]string) {
	served := openapi.ServedPath(c.doc, o)
	path := c.fill(served, &o, "")
	// An item position of a resource takes its entity's id.
	segs, filled := strings.Split(shape(served), "/"), strings.Split(path, "/")
	for n := len(segs); n > 0; n-- {
		if id, ok := ids[strings.Join(segs[:n], "/")]; ok && id != "" {
			s := strings.Split(served, "/")[n-1]
			if open, cl := strings.IndexByte(s, '{'), strings.IndexByte(s, '}'); open >= 0 && cl > open {
				filled[n-1] = s[:open] + id + s[cl+1:]
			}
		}
	}
	path = strings.Join(filled, "/")
	if q := requiredQuery(&o); q != "" {
		path += "?" + q
	}
	var body map[string]any
	if o.Method == "POST" || o.Method == "PUT" || o.Method == "PATCH" {
		body = requestBody(&o, "", 0, "")
		c.sendBad(o, path, body)
	}
	c.send("sweep", o.Method, path, &o, body)
}

// sendBad sends body, the write o takes, without its first required
// property (sorted), before the write itself: a request the description
// refuses, which the provider answers 400 or 422 (as Prism does) without
// changing anything. Counted in the row's bad and refused; its answer is
// validated as every answer is, into the row's refusals.
func (c *client) sendBad(o openapi.Operation, path string, body map[string]any) {
	s := requestSchema(&o)
	if s == nil || s.Value == nil || body == nil {
		return
	}
	_, required := properties(s.Value, 0)
	sort.Strings(required)
	if len(required) == 0 {
		return
	}
	bad := maps.Clone(body)
	delete(bad, required[0])
	c.refusing = true
	a := c.send("sweep", o.Method, path, &o, bad)
	c.refusing = false
	if a.header.Get("X-Wraith-Provenance") == "miss" {
		return
	}
	c.row.bad++
	if a.status == http.StatusBadRequest || a.status == http.StatusUnprocessableEntity {
		c.row.refused++
		return
	}
	c.row.failures = append(c.row.failures, fmt.Sprintf("bad request %s %s without %s: want 400 or 422, have %s", o.Method, path, required[0], a))
}

// requiredQuery is op's required query parameters, each a plain value.
func requiredQuery(o *openapi.Operation) string {
	v := map[string]any{}
	for _, p := range o.Op.Parameters {
		if p.Value != nil && p.Value.In == "query" && p.Value.Required {
			if p.Value.Example != nil {
				v[p.Value.Name] = p.Value.Example
			} else {
				v[p.Value.Name] = instance(p.Value.Schema, 0)
			}
		}
	}
	if len(v) == 0 {
		return ""
	}
	return form(v).Encode()
}
