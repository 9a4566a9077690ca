// Package rest is the dialect of a twin imported from a description of
// any API (SPEC §13, §17): JSON bodies, lists as bare arrays paged by a
// Link header, string ids, 201 creates and 204 deletes.
package rest

import (
	"encoding/json"
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Dialect is the rest dialect.
type Dialect struct{ dialect.Base }

var _ dialect.Dialect = Dialect{}

// New returns the rest dialect.
func New() Dialect { return Dialect{} }

// Name is "rest".
func (Dialect) Name() string { return "rest" }

// Errors are RFC 9457 problem details, for a twin whose description
// declares no error schema of its own.
func (Dialect) Errors() map[string]dialect.Shape {
	const problem = "application/problem+json"
	return map[string]dialect.Shape{
		"not_found":        {Status: http.StatusNotFound, ContentType: problem, Body: `{"type":"about:blank","title":"Not Found","status":404,"detail":"There is no {object} '{id}'."}`},
		"invalid_request":  {Status: http.StatusBadRequest, ContentType: problem, Body: `{"type":"about:blank","title":"Bad Request","status":400,"detail":"{message}","invalid-params":[{"name":"{param}","reason":"{message}"}]}`},
		"validation":       {Status: http.StatusUnprocessableEntity, ContentType: problem, Body: `{"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"{param}: {code}","invalid-params":[{"name":"{param}","reason":"{code}"}]}`},
		"unexpected_state": {Status: http.StatusConflict, ContentType: problem, Body: `{"type":"about:blank","title":"Conflict","status":409,"detail":"This {object} is {status}: it cannot be {action}."}`},
	}
}

// List pages a list as the base dialect does (a bare array with a Link
// header); an envelope list answers that page in its envelope's member.
func (d Dialect) List(q dialect.ListQuery) (dialect.ListAnswer, *dialect.Refusal) {
	page, refused := d.Base.List(q)
	if refused == nil && q.Envelope != nil {
		page.Body = q.Envelope.Wrap(page.Body)
	}
	return page, refused
}

// NewID mints a string id as its prefix and 32 lowercase hexadecimal
// digits, the shape most descriptions' id patterns allow (Twilio's
// ^AC[0-9a-fA-F]{32}$, a uuid's digits), from the session's generator
// as every dialect's ids are; integers as the base dialect mints them.
func (Dialect) NewID(src dialect.IDSource, kind, prefix string) any {
	if kind != "string" {
		return dialect.NewID(src, kind, prefix)
	}
	const hex = "0123456789abcdef"
	b := []byte(src.NewID(prefix, hexIDLen))
	for i := len(prefix); i < len(b); i++ {
		b[i] = hex[b[i]%16]
	}
	return string(b)
}

// hexIDLen is how many hexadecimal digits follow a string id's prefix.
const hexIDLen = 32

// KeyNames are the fields an entity's key is found in, in order: what
// real descriptions name an id (Twilio's sid, Asana's gid, Jira's key,
// GitHub-style number, uuid, DigitalOcean's slug). The importer looks
// for a resource's key in them, and FromString for the key of an object
// named by a string.
var KeyNames = []string{"id", "sid", "gid", "key", "number", "uuid", "slug"}

// FromString reads a string sent where the entity holds an object as a
// reference to that object by its key (Asana's workspace: "12345",
// answered as {"gid": "12345", "resource_type": "workspace", ...}): the
// object as it was, its key (the first of KeyNames it has) set to the
// string, a number where the key is one. An object with none of them is
// not named by a string. A numbered key is passed over for a string
// that is no number where the object has another key (DigitalOcean's
// image, {"id": 7555620, "slug": "ubuntu-20-04-x64"}, named by its slug).
func (Dialect) FromString(field string, cur *object.Object, s string) (*object.Object, bool) {
	keys := make([]string, 0, len(KeyNames))
	for _, k := range KeyNames {
		if _, ok := cur.Get(k); ok {
			keys = append(keys, k)
		}
	}
	for i, k := range keys {
		v, _ := cur.Get(k)
		if _, isNumber := v.(json.Number); isNumber && !isDigits(s) && i+1 < len(keys) {
			continue
		}
		o := cur.Clone()
		// A numbered key stays a number (Jira's project {"id": 10000}
		// sent as "10000").
		if _, isNumber := v.(json.Number); isNumber && isDigits(s) {
			o.Set(k, json.Number(s))
		} else {
			o.Set(k, s)
		}
		return o, true
	}
	return nil, false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Defaults: creates answer 201, deletes 204, ids are strings.
func (Dialect) Defaults() dialect.Defaults {
	return dialect.Defaults{CreateStatus: http.StatusCreated, DeleteStatus: http.StatusNoContent, IDKind: "string"}
}
