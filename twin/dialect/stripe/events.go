package stripe

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Events (SPEC §14): what a session did, as Stripe's events, kept in
// order and delivered to the session's webhook endpoints.
//
// An event is kept once, as /v1/events shows it, in the account's
// default API version; each endpoint gets it in its own api_version when
// it was created with one (the twin has one schema, so the version is a
// name the event carries, which the clients' verifiers compare with
// their own). The twin's account has no settings page, so its default is
// the version its clients speak: the Stripe-Version of the request that
// caused the event, else that of the session's latest event a request
// caused (the clock's work has no request), else defaultAPIVersion.

// events adds the routes whose behaviour is about events and endpoints:
// the endpoints' own. The events of a resource's create, update and
// delete (customer.created, ...) are the twin's to declare
// ([resources.events]; declared.go emits them).
func (b behaviours) events() {
	b["POST /v1/webhook_endpoints"] = behaviour{after: endpointCreated}
	b["POST /v1/webhook_endpoints/{id}"] = behaviour{after: endpointUpdated}
}

// endpointCreated completes a new endpoint: enabled, and its signing
// secret in the create answer only, as Stripe shows it. The secret is
// derived from the endpoint's id (endpointSecret), so the session keeps
// no value a read does not show, and the same requests on the same seed
// make the same secret.
func endpointCreated(c *dialect.Call, _ int, body []byte) []byte {
	o := decode(body)
	if o == nil {
		return nil
	}
	o.Delete("secret")
	o.Set("status", "enabled")
	kept := decode(keep(c.World, "webhook_endpoint", o))
	if kept == nil {
		return nil
	}
	return withSecret(kept, endpointSecret(kept.String("id"))).AppendJSON(nil)
}

// withSecret is o with secret in its place in Stripe's order, after
// object.
func withSecret(o *object.Object, secret string) *object.Object {
	out := object.New(o.Len() + 1)
	for i, k := range o.Keys() {
		out.Set(k, o.Values()[i])
		if k == "object" {
			out.Set("secret", secret)
		}
	}
	if !out.Has("secret") {
		out.Set("secret", secret)
	}
	return out
}

// endpointSecret is the signing secret of the endpoint with id: "whsec_"
// and 32 characters of the HMAC-SHA256 of the id. It is no secret from
// whoever knows the id and this function, which a twin's endpoint need
// not be: it stands in for Stripe's, which the endpoint's owner reads
// once, so that the owner's verifier has one to check.
func endpointSecret(id string) string {
	m := hmac.New(sha256.New, []byte("wraith stripe webhook endpoint secret"))
	m.Write([]byte(id))
	return "whsec_" + base64.RawURLEncoding.EncodeToString(m.Sum(nil))[:32]
}

// endpointUpdated follows disabled=true|false into the endpoint's
// status, which is what decides whether it is delivered to.
func endpointUpdated(c *dialect.Call, _ int, body []byte) []byte {
	var status string
	switch param(c, "disabled") {
	case "true":
		status = "disabled"
	case "false":
		status = "enabled"
	default:
		return nil
	}
	o := decode(body)
	if o == nil {
		return nil
	}
	o.Set("status", status)
	return keep(c.World, "webhook_endpoint", o)
}

// changed returns the values was's fields had where o's differ: an update
// event's previous_attributes. A nested hash shows only its members that
// changed, a member it did not have before as null; an array that changed
// is shown whole (docs.stripe.com/changelog 2015-01-26 and 2017-05-25).
// Stripe names the event's changes even when there are none ({}), and so
// when the session held no earlier version to compare.
func changed(was, o *object.Object) *object.Object {
	prev := object.New(0)
	if was == nil || o == nil {
		return prev
	}
	for i, k := range was.Keys() {
		v := was.Values()[i]
		now, _ := o.Get(k)
		wasObj, _ := v.(*object.Object)
		nowObj, _ := now.(*object.Object)
		if wasObj != nil && nowObj != nil {
			if sub := changed(wasObj, nowObj); sub.Len() > 0 {
				prev.Set(k, sub)
			}
			continue
		}
		if !bytes.Equal(object.AppendValue(nil, v), object.AppendValue(nil, now)) {
			prev.Set(k, v)
		}
	}
	for _, k := range o.Keys() {
		if !was.Has(k) {
			prev.Set(k, nil) // a member the hash did not have
		}
	}
	return prev
}

// emit records an event of typ about o (the object as it is now; prev the
// values its changed fields had before, for *.updated events, nil for
// none) and queues its delivery to the session's enabled endpoints that
// listen for typ. c is the request that caused it, nil for the clock's
// work (the event's request is then null, as for Stripe's own
// automatic work). A twin that declares no event resource records none.
func emit(w dialect.World, c *dialect.Call, typ string, o, prev *object.Object) {
	emitJSON(w, c, typ, o.AppendJSON(nil), prev)
}

// emitJSON is emit of an object as JSON (an answer's body, as it is),
// which the event carries as it is, not read and written again.
func emitJSON(w dialect.World, c *dialect.Call, typ string, obj json.RawMessage, prev *object.Object) {
	if len(obj) == 0 {
		return
	}
	ev := fresh(w, "event")
	if ev == nil {
		return
	}
	data := object.New(2)
	data.Set("object", obj)
	if prev != nil {
		data.Set("previous_attributes", prev)
	}
	ev.Set("data", data)
	ev.Set("type", typ)
	if c != nil { // the clock's work keeps the skeleton's null
		req := object.New(2)
		req.Set("id", w.NewID("req_"))
		if k := c.Header.Get("Idempotency-Key"); k != "" {
			req.Set("idempotency_key", k)
		} else {
			req.Set("idempotency_key", nil)
		}
		ev.Set("request", req)
	}
	// account and context name a connected account and its context, which
	// the twin's single account has none of: Stripe leaves them out.
	ev.Delete("account")
	ev.Delete("context")
	ev.Set("livemode", false)
	ev.Set("api_version", accountVersion(w, c))
	targets := endpoints(w, typ)
	ev.Set("pending_webhooks", num(int64(len(targets))))
	kept := keep(w, "event", ev)
	if kept == nil {
		return
	}
	for _, t := range targets {
		body := kept
		if t.version != "" && t.version != ev.String("api_version") {
			if o := decode(kept); o != nil {
				o.Set("api_version", t.version)
				body = o.AppendJSON(nil)
			}
		}
		w.Deliver(dialect.Delivery{URL: t.url, Secret: t.secret, Event: ev.String("id"), Header: deliveryHeader(), Body: body})
	}
}

// target is an endpoint an event is delivered to.
type target struct {
	url, secret, version string
}

// endpoints returns the session's enabled endpoints whose enabled_events
// list typ or "*", oldest first, so that deliveries go out in the order
// the endpoints were made.
func endpoints(w dialect.World, typ string) []target {
	var out []target
	quoted := object.AppendString(nil, typ)
	w.Each("webhook_endpoint", func(body []byte) bool {
		if !mayList(body, quoted) {
			return true
		}
		ep := decode(body)
		if ep == nil || ep.String("status") != "enabled" || ep.String("url") == "" {
			return true
		}
		v, _ := ep.Get("enabled_events")
		list, _ := v.([]any)
		if !slices.Contains(list, any(typ)) && !slices.Contains(list, any("*")) {
			return true
		}
		out = append(out, target{url: ep.String("url"), secret: endpointSecret(ep.String("id")), version: ep.String("api_version")})
		return true
	})
	slices.Reverse(out)
	return out
}

// mayList reports whether an endpoint's body may list the event type
// quoted (a JSON string) or "*" among its enabled_events, without reading
// it: a body without a backslash holds its strings as they are, so one
// that holds neither text lists neither. Most endpoints listen for a few
// types, and every event a session makes asks each endpoint.
func mayList(body, quoted []byte) bool {
	return bytes.IndexByte(body, '\\') >= 0 || bytes.Contains(body, quoted) || bytes.Contains(body, []byte(`"*"`))
}

// accountVersion is the API version the twin's account renders events
// in (see the top of this file): the request's, else the session's
// latest event's, which is the latest a request caused or inherits its
// version from it.
func accountVersion(w dialect.World, c *dialect.Call) string {
	if c != nil {
		if v := c.Header.Get("Stripe-Version"); validVersion(v) {
			return v
		}
	}
	if cw, ok := w.(*clockWorld); ok {
		return cw.version
	}
	if v := eventVersion(w.Newest("event")); validVersion(v) {
		return v
	}
	return defaultAPIVersion
}

// eventVersion is an event's api_version, read off its bytes without
// decoding the object it carries: the twin's events hold api_version
// before data, in the order of Stripe's event (the skeleton's), so the
// first "api_version" member is the event's own. A body that holds it
// otherwise (escaped, or not a string) is decoded.
func eventVersion(body []byte) string {
	const key = `"api_version":"`
	if i := bytes.Index(body, []byte(key)); i >= 0 {
		if d := bytes.Index(body, []byte(`"data":`)); d < 0 || i < d {
			rest := body[i+len(key):]
			if j := bytes.IndexByte(rest, '"'); j >= 0 && bytes.IndexByte(rest[:j], '\\') < 0 {
				return string(rest[:j])
			}
		}
	}
	if ev := decode(body); ev != nil {
		return ev.String("api_version")
	}
	return ""
}

// validVersion reports whether v reads as one of Stripe's API versions,
// "2025-03-31.basil" (or an older one without its release's name): a
// header is the client's to send, and an event carries only a version.
func validVersion(v string) bool {
	if len(v) < len("2006-01-02") || len(v) > 40 {
		return false
	}
	for i := range len("2006-01-02") {
		c := v[i]
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	for _, c := range []byte(v[10:]) {
		if !(c == '.' || c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// deliveryHeader is what Stripe's deliveries carry beside the signature.
func deliveryHeader() http.Header {
	return http.Header{
		"Content-Type": {"application/json; charset=utf-8"},
		"User-Agent":   {"Stripe/1.0 (+https://stripe.com/docs/webhooks)"},
	}
}

// defaultAPIVersion is the API version of Stripe's description the
// embedded twin is imported from, which events name when nothing else
// does.
const defaultAPIVersion = "2026-08-26.dahlia"
