package stripe

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// The catalogue: customers' invoice numbering, products and their default
// price, prices and their inline product.

// Complete gives a new customer its invoice_prefix, which Stripe
// derives for every customer, before the engine keeps it, unless the
// client chose one.
func (Dialect) Complete(n dialect.New) {
	if n.Resource != "customer" || n.Sent("invoice_prefix") || n.Object.String("invoice_prefix") != "" {
		return
	}
	if id := n.Object.String("id"); id != "" {
		n.Object.Set("invoice_prefix", invoicePrefix(id))
	}
}

// invoicePrefix derives a customer's prefix from its id, so that it is as
// deterministic and session-local as the id.
func invoicePrefix(id string) string {
	id = id[strings.IndexByte(id, '_')+1:]
	if len(id) > 8 {
		id = id[len(id)-8:]
	}
	return strings.ToUpper(id)
}

// productCreated makes the price default_price_data describes, as
// Stripe does, and names it the product's default_price.
func productCreated(c *dialect.Call, _ int, body []byte) []byte {
	w := c.World
	p := decode(body)
	if p == nil {
		return nil
	}
	var pr *object.Object
	if d := paramMap(c, "default_price_data"); d != nil && w.Has("price") {
		pr = newPrice(w, p.String("id"), d)
	}
	if pr != nil {
		p.Set("default_price", pr.String("id"))
		body = keep(w, "product", p)
	}
	emit(w, c, "product.created", p, nil)
	if pr != nil {
		emit(w, c, "price.created", pr, nil)
	}
	return expandField(c, body, "default_price", "price")
}

// newPrice keeps a price of product from d, parameters as a price's
// create takes them (default_price_data, price_data).
func newPrice(w dialect.World, product string, d map[string]any) *object.Object {
	pr := fresh(w, "price")
	if pr == nil {
		return nil
	}
	pr.Set("currency", strings.ToLower(text(d, "currency")))
	if m, ok := d["metadata"].(map[string]any); ok {
		md := object.New(len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			md.Set(k, m[k])
		}
		pr.Set("metadata", md)
	}
	pr.Set("product", product)
	if r, ok := d["recurring"].(map[string]any); ok {
		pr.Set("recurring", recurring(r))
		pr.Set("type", "recurring")
	}
	if tb := text(d, "tax_behavior"); tb != "" {
		pr.Set("tax_behavior", tb)
	}
	ua, dec := text(d, "unit_amount"), text(d, "unit_amount_decimal")
	if ua != "" {
		if n, err := strconv.ParseInt(ua, 10, 64); err == nil {
			pr.Set("unit_amount", num(n))
		}
		dec = ua
	} else if n, err := strconv.ParseInt(dec, 10, 64); err == nil {
		pr.Set("unit_amount", num(n)) // a whole decimal is the amount too
	}
	if dec != "" {
		pr.Set("unit_amount_decimal", dec)
	}
	if keep(w, "price", pr) == nil {
		return nil
	}
	return pr
}

// recurring is a price's recurring object from its parameters, over
// Stripe's defaults.
func recurring(r map[string]any) *object.Object {
	o := object.New(4)
	o.Set("interval", "month")
	if s := text(r, "interval"); s != "" {
		o.Set("interval", s)
	}
	count := int64(1)
	if n, err := strconv.ParseInt(text(r, "interval_count"), 10, 64); err == nil && n > 0 {
		count = n
	}
	o.Set("interval_count", num(count))
	o.Set("meter", nil)
	if s := text(r, "meter"); s != "" {
		o.Set("meter", s)
	}
	o.Set("usage_type", "licensed")
	if s := text(r, "usage_type"); s != "" {
		o.Set("usage_type", s)
	}
	return o
}

// priceCreated makes the product product_data describes and records the
// price's event.
func priceCreated(c *dialect.Call, _ int, body []byte) []byte {
	w := c.World
	pr := decode(body)
	if pr == nil {
		return nil
	}
	if d := paramMap(c, "product_data"); d != nil && w.Has("product") {
		if p := fresh(w, "product"); p != nil {
			p.Set("name", text(d, "name"))
			if s := text(d, "statement_descriptor"); s != "" {
				p.Set("statement_descriptor", s)
			}
			if s := text(d, "unit_label"); s != "" {
				p.Set("unit_label", s)
			}
			if keep(w, "product", p) != nil {
				emit(w, c, "product.created", p, nil)
				pr.Set("product", p.String("id"))
				body = keep(w, "price", pr)
			}
		}
	}
	emit(w, c, "price.created", pr, nil)
	return expandField(c, body, "product", "product")
}

// expandField answers body with field, an id, replaced by the entity of
// resource it names when the request asked for it (expand[]=field): the
// answer after a behaviour is the entity as kept, which holds ids.
func expandField(c *dialect.Call, body []byte, field, resource string) []byte {
	if body == nil || !expands(c, field) {
		return body
	}
	o := decode(body)
	if o == nil {
		return body
	}
	if e := load(c.World, resource, o.String(field)); e != nil {
		o.Set(field, e)
		return o.AppendJSON(nil)
	}
	return body
}

// expands reports whether the request lists field in expand.
func expands(c *dialect.Call, field string) bool {
	switch e := c.Params["expand"].(type) {
	case []any:
		for _, v := range e {
			if v == field {
				return true
			}
		}
	case map[string]any:
		for _, v := range e {
			if v == field {
				return true
			}
		}
	case string:
		return e == field
	}
	return false
}
