package stripe

import (
	"encoding/json"
	"strconv"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Stripe's list filters (docs.stripe.com/api, each list's parameters)
// beyond a top-level field's value, which the engine compares itself:
//
//	created[gte]=...&created[lt]=...   a range of a number field, any list
//	created=1700000000                 (the engine: the field's value)
//	ids[]=prod_1, lookup_keys[]=k      a set of a field's values (types[] too)
//	recurring[interval]=month          fields of a nested object
//	status (subscriptions)             none: all but canceled; all; ended
//	price (subscriptions)              an item's price
//	current_period_end[...] (subscriptions)    the items' earliest end
//	current_period_start[...] (subscriptions)  the items' latest start
//	subscription (invoices)            the invoice's parent subscription
//	pending (invoice items)            not yet on an invoice
//	delivery_success (events)          no webhook left to deliver
//
// A field that holds an expanded object compares by its id.

var _ dialect.Filterer = Dialect{}

// Filter returns the test of a list parameter the engine does not compare
// by a top-level field's value.
func (Dialect) Filter(resource, param string, value any) (func(*object.Object) bool, bool) {
	switch {
	case resource == "subscription" && param == "status":
		s, _ := value.(string)
		return subscriptionStatus(s), true
	case resource == "subscription" && param == "price":
		s, _ := value.(string)
		return func(o *object.Object) bool {
			return anySubscriptionItem(o, func(it *object.Object) bool { return formValue(fieldOf(it, "price")) == s })
		}, true
	case resource == "subscription" && (param == "current_period_end" || param == "current_period_start"):
		return periodFilter(param, value)
	case resource == "invoice" && param == "subscription":
		s, _ := value.(string)
		return func(o *object.Object) bool {
			return formValue(fieldAt(o, "parent", "subscription_details", "subscription")) == s
		}, true
	case resource == "event" && param == "delivery_success":
		s, _ := value.(string)
		return func(o *object.Object) bool {
			n, _ := numberOf(fieldOf(o, "pending_webhooks"))
			return (n == 0) == (s == "true")
		}, true
	case resource == "invoiceitem" && param == "pending":
		s, _ := value.(string)
		return func(o *object.Object) bool { return (fieldOf(o, "invoice") == nil) == (s == "true") }, true
	}
	switch v := value.(type) {
	case map[string]any:
		if r, ok := readRange(v); ok {
			return func(o *object.Object) bool { return r.holds(fieldOf(o, param)) }, true
		}
		return func(o *object.Object) bool { return nestedEqual(fieldOf(o, param), v) }, true
	case []any:
		field, ok := setFilters[param]
		if !ok {
			return nil, false
		}
		want := make(map[string]bool, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				want[s] = true
			}
		}
		return func(o *object.Object) bool { return want[formValue(fieldOf(o, field))] }, true
	}
	return nil, false
}

// DefaultFilter: a subscription list that names no status answers those
// not canceled.
func (Dialect) DefaultFilter(resource string, params map[string]any) func(*object.Object) bool {
	if resource != "subscription" {
		return nil
	}
	if _, ok := params["status"]; ok {
		return nil
	}
	return subscriptionStatus("")
}

// subscriptionStatus is the status filter of a subscription list: ""
// (none sent) is every status but canceled, all is every one, ended is
// canceled or incomplete_expired.
func subscriptionStatus(s string) func(*object.Object) bool {
	return func(o *object.Object) bool {
		have := o.String("status")
		switch s {
		case "":
			return have != "canceled"
		case "all":
			return true
		case "ended":
			return have == "canceled" || have == "incomplete_expired"
		}
		return have == s
	}
}

// periodFilter compares a subscription's items' period: the earliest
// current_period_end, or the latest current_period_start.
func periodFilter(param string, value any) (func(*object.Object) bool, bool) {
	var r span
	switch v := value.(type) {
	case map[string]any:
		var ok bool
		if r, ok = readRange(v); !ok {
			return nil, false
		}
	case string:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, false
		}
		r = span{ops: []bound{{">=", n}, {"<=", n}}}
	default:
		return nil, false
	}
	earliest := param == "current_period_end"
	return func(o *object.Object) bool {
		var have *float64
		anySubscriptionItem(o, func(it *object.Object) bool {
			n, ok := numberOf(fieldOf(it, param))
			if ok && (have == nil || earliest && n < *have || !earliest && n > *have) {
				have = &n
			}
			return false
		})
		return have != nil && r.holdsNumber(*have)
	}, true
}

// span is a range filter: each bound must hold.
type span struct{ ops []bound }

type bound struct {
	op string
	n  float64
}

var rangeOps = map[string]string{"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}

// setFilters are the list parameters Stripe documents as a set of a
// field's values: products' ids[], prices' lookup_keys[], events' types[].
var setFilters = map[string]string{"ids": "id", "lookup_keys": "lookup_key", "types": "type"}

// readRange reads {gt, gte, lt, lte}; ok is false for a hash of other
// keys (a nested object's fields).
func readRange(m map[string]any) (span, bool) {
	var r span
	for k, v := range m {
		op, isOp := rangeOps[k]
		s, isString := v.(string)
		if !isOp || !isString {
			return span{}, false
		}
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return span{}, false
		}
		r.ops = append(r.ops, bound{op, n})
	}
	return r, len(r.ops) > 0
}

func (r span) holds(v any) bool {
	n, ok := numberOf(v)
	return ok && r.holdsNumber(n)
}

func (r span) holdsNumber(n float64) bool {
	for _, b := range r.ops {
		switch {
		case b.op == ">" && !(n > b.n), b.op == ">=" && !(n >= b.n), b.op == "<" && !(n < b.n), b.op == "<=" && !(n <= b.n):
			return false
		}
	}
	return true
}

// nestedEqual reports whether the object v holds each of want's fields
// (recurring[interval]=month, customer_details[email]=...), nested
// hashes within.
func nestedEqual(v any, want map[string]any) bool {
	o, ok := v.(*object.Object)
	if !ok {
		return false
	}
	for k, w := range want {
		have := fieldOf(o, k)
		switch t := w.(type) {
		case map[string]any:
			if !nestedEqual(have, t) {
				return false
			}
		case string:
			if formValue(have) != t {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// formValue is a field's value as a form sends it: a string as it is,
// an expanded object as its id, numbers and booleans as their text.
func formValue(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case *object.Object:
		return t.String("id")
	case json.Number:
		return string(t)
	case bool:
		return strconv.FormatBool(t)
	}
	return ""
}

func fieldOf(o *object.Object, field string) any {
	v, _ := o.Get(field)
	return v
}

func fieldAt(o *object.Object, path ...string) any {
	v, _ := lookup(o, path)
	return v
}

func numberOf(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil
}

// anySubscriptionItem reports whether fn holds for one of a subscription's items.
func anySubscriptionItem(o *object.Object, fn func(*object.Object) bool) bool {
	items, _ := fieldAt(o, "items", "data").([]any)
	for _, el := range items {
		if it, ok := el.(*object.Object); ok && fn(it) {
			return true
		}
	}
	return false
}
