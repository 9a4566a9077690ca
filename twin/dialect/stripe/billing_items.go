package stripe

import (
	"strconv"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// An update's items (docs.stripe.com/billing/subscriptions/change-price):
// an entry with an id changes that item (its price, quantity, metadata,
// or deleted=true removes it), an entry without one adds an item, and an
// item the update does not name stays as it was. The engine replaces a
// list field's data with what was sent, which would make every named item
// a new one (quantity 1, a period starting now) and drop those not named:
// mergeItems puts the subscription's own items back with the changes.

// mergeItems rebuilds sub's items from was (the subscription before the
// update) and the items the update sent, whose entries the engine made
// in sub's items in the order sent. It reports whether the update sent
// items.
func mergeItems(c *dialect.Call, was, sub *object.Object) bool {
	sent, _ := c.Params["items"].([]any)
	if len(sent) == 0 || was == nil {
		return false
	}
	made := items(sub, "items")
	list := child(sub, "items")
	if list == nil {
		return false
	}
	changes := make(map[string]int, len(sent)) // item id to its entry
	for i, v := range sent {
		if id := text(asMap(v), "id"); id != "" {
			changes[id] = i
		}
	}
	start, end := periodStart(was), periodEnd(was)
	var out []any
	for _, v := range items(was, "items") {
		it, ok := v.(*object.Object)
		if !ok {
			continue
		}
		i, named := changes[it.String("id")]
		if !named {
			out = append(out, it)
			continue
		}
		m := asMap(sent[i])
		if text(m, "deleted") == "true" {
			continue
		}
		it = it.Clone()
		if i < len(made) {
			if nu, ok := made[i].(*object.Object); ok && (text(m, "price") != "" || m["price_data"] != nil) {
				it.Set("price", mustGet(nu, "price"))
				if pl, ok := nu.Get("plan"); ok && it.Has("plan") {
					it.Set("plan", pl)
				}
			}
		}
		if q, err := strconv.ParseInt(text(m, "quantity"), 10, 64); err == nil {
			it.Set("quantity", num(q))
		}
		mergeMetadata(it, m["metadata"])
		out = append(out, it)
	}
	for i, v := range sent {
		if text(asMap(v), "id") != "" || i >= len(made) {
			continue
		}
		if nu, ok := made[i].(*object.Object); ok {
			// A new item bills from the subscription's current period.
			nu.Set("current_period_end", num(end))
			nu.Set("current_period_start", num(start))
			out = append(out, nu)
		}
	}
	if out == nil {
		out = []any{}
	}
	list.Set("data", out)
	if list.Has("total_count") {
		list.Set("total_count", num(int64(len(out))))
	}
	return true
}

// asMap is v as a parameter's nested map, nil when it is none.
func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
