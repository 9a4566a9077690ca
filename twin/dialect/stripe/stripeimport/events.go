package stripeimport

import (
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
)

// A resource's events ([resources.events]): Stripe's description has no
// schema per event, but it lists every event type once, as the values a
// webhook endpoint's enabled_events takes. A resource declares those of
// its writes that the list holds: X.created, X.updated and X.deleted for
// its create, update and delete, and X.<verb, past tense> for an action
// (payment_intent.canceled, invoice.finalized, invoice.marked_uncollectible).
//
// X is the type's name as Stripe's events spell it:
//   - the object type itself, where some event is named under it
//     (customer, billing.meter, source);
//   - else with its dots as underscores (issuing.card: issuing_card.created);
//   - else the one event prefix that ends in ".object type", for a type
//     that Stripe names under its owner (subscription:
//     customer.subscription.created; dispute: charge.dispute.created).
//     A type with events of its own is not: a source's are
//     source.chargeable and the like, and customer.source.created is a
//     source attached to a customer, not one created.

// eventTypes is the set of event types in a description.
type eventTypes map[string]bool

// readEventTypes reads the enum of enabled_events of
// POST /v1/webhook_endpoints; nil when the description has none.
func readEventTypes(doc *openapi3.T) eventTypes {
	if doc.Paths == nil {
		return nil
	}
	item := doc.Paths.Value("/v1/webhook_endpoints")
	if item == nil || item.Post == nil || item.Post.RequestBody == nil || item.Post.RequestBody.Value == nil {
		return nil
	}
	var out eventTypes
	for _, ct := range sortedKeys(item.Post.RequestBody.Value.Content) {
		mt := item.Post.RequestBody.Value.Content[ct]
		if mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		p := mt.Schema.Value.Properties["enabled_events"]
		if p == nil || p.Value == nil || p.Value.Items == nil || p.Value.Items.Value == nil {
			continue
		}
		for _, v := range p.Value.Items.Value.Enum {
			if s, ok := v.(string); ok && s != "*" {
				if out == nil {
					out = eventTypes{}
				}
				out[s] = true
			}
		}
	}
	return out
}

// prefix is the name events of the object type name are spelled under,
// "" for none.
func (ev eventTypes) prefix(name string) string {
	for _, p := range []string{name, strings.ReplaceAll(name, ".", "_")} {
		if ev.names(p) {
			return p // some event is named under the type itself
		}
	}
	if strings.Contains(name, ".") {
		return "" // a namespaced type (checkout.session) has no owner
	}
	var owned []string
	for typ := range ev {
		i := strings.LastIndexByte(typ, '.')
		if p := typ[:max(i, 0)]; strings.HasSuffix(p, "."+name) && !slices.Contains(owned, p) {
			owned = append(owned, p)
		}
	}
	if len(owned) != 1 {
		return "" // none, or several owners: no one type to name
	}
	return owned[0]
}

// names reports whether some event type is p and one more word
// (p.created, p.chargeable).
func (ev eventTypes) names(p string) bool {
	for typ := range ev {
		if rest, ok := strings.CutPrefix(typ, p+"."); ok && !strings.Contains(rest, ".") {
			return true
		}
	}
	return false
}

// events is the [resources.events] of fr, from the operations it has.
func (ev eventTypes) events(fr *format.Resource) format.Events {
	var out format.Events
	p := ev.prefix(fr.Name)
	if p == "" {
		return out
	}
	has := func(typ string) string {
		if ev[typ] {
			return typ
		}
		return ""
	}
	for _, op := range fr.Operations() {
		switch op.Op {
		case "create":
			out.Create = has(p + ".created")
		case "update":
			out.Update = has(p + ".updated")
		case "delete":
			out.Delete = has(p + ".deleted")
		case "action":
			if typ := has(p + "." + pastTense(op.Name)); typ != "" {
				if out.Actions == nil {
					out.Actions = map[string]string{}
				}
				out.Actions[op.Name] = typ
			}
		}
	}
	return out
}

// pastTense is an action's verb as Stripe's event names it happened:
// cancel, canceled; finalize, finalized; mark_uncollectible,
// marked_uncollectible; and the irregular verbs of Stripe's actions whose
// events the description lists (invoice.paid, invoice.sent,
// issuing_dispute.submitted). A past tense the description does not list
// is no event.
func pastTense(verb string) string {
	word, rest, _ := strings.Cut(verb, "_")
	if rest != "" {
		rest = "_" + rest
	}
	switch word {
	case "pay":
		return "paid" + rest
	case "send":
		return "sent" + rest
	case "submit":
		return "submitted" + rest
	}
	if strings.HasSuffix(word, "e") {
		return word + "d" + rest
	}
	return word + "ed" + rest
}

// declareEvents writes fr's events from the operations it has, and says
// so in the import report.
func (im *importer) declareEvents(fr *format.Resource) {
	fr.Events = im.events.events(fr)
	e := fr.Events
	var said []string
	for _, kv := range [][2]string{{"create", e.Create}, {"update", e.Update}, {"delete", e.Delete}} {
		if kv[1] != "" {
			said = append(said, kv[0]+"="+kv[1])
		}
	}
	for _, name := range sortedKeys(e.Actions) {
		said = append(said, name+"="+e.Actions[name])
	}
	if len(said) > 0 {
		im.report.AddInferred(fr.Name, "events", strings.Join(said, " "), "event types of enabled_events (POST /v1/webhook_endpoints)", 1)
	}
}
