package reqschema

import (
	"encoding/json"
	"testing"

	"github.com/wraithdev/wraith/twin/canon"
)

// customerCreate is the shape of Stripe's POST /v1/customers schema, in
// part: strings with bounds, an enum, metadata, an address object that
// "" clears, an expandable reference.
const customerCreate = `{"type":"object","properties":{
	"address":{"any_of":[{"type":"object","properties":{"city":{"type":"string","max_length":5000},"country":{"type":"string","max_length":5000},"line1":{"type":"string","max_length":5000}}},{"type":"string","enum":[""]}]},
	"balance":{"type":"integer"},
	"description":{"type":"string","max_length":5000},
	"email":{"type":"string","max_length":512},
	"expand":{"type":"array","items":{"type":"string","max_length":5000}},
	"metadata":{"any_of":[{"type":"object","additional":{"type":"string"}},{"type":"string","enum":[""]}]},
	"name":{"type":"string","max_length":256},
	"phone":{"type":"string","max_length":20},
	"preferred_locales":{"type":"array","items":{"type":"string","max_length":5000}},
	"source":{"type":"string","max_length":5000,"ref":"source"},
	"tax_exempt":{"type":"string","enum":["","exempt","none","reverse"]},
	"test_clock":{"type":"string","max_length":5000,"ref":"test_helpers.test_clock"}
}}`

const customerBody = "email=ada%40example.com&name=Ada+Lovelace&description=first&phone=555-0100&metadata[order]=7&metadata[plan]=pro&balance=100&tax_exempt=none"

func benchSchema(b *testing.B) *Schema {
	var s Schema
	if err := json.Unmarshal([]byte(customerCreate), &s); err != nil {
		b.Fatal(err)
	}
	return &s
}

// BenchmarkCheckFlat: a valid customer create through the fast path,
// which must not allocate.
func BenchmarkCheckFlat(b *testing.B) {
	s := benchSchema(b)
	flat, ok := canon.FlatParams(nil, "application/x-www-form-urlencoded", []byte(customerBody), "")
	if !ok {
		b.Fatal("the body is not flat")
	}
	b.ReportAllocs()
	for b.Loop() {
		if p := CheckFlat(s, flat, nil); p != nil {
			b.Fatal(p)
		}
	}
}

// BenchmarkCheck: the same request as a tree, typed.
func BenchmarkCheck(b *testing.B) {
	s := benchSchema(b)
	params, err := canon.Params("application/x-www-form-urlencoded", []byte(customerBody), "")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, p := Check(s, params, true, nil); p != nil {
			b.Fatal(p)
		}
	}
}

// TestCheckFlatAllocs: a valid flat request costs no allocation, with a
// reference looked up, as BenchmarkCheckFlat measures.
func TestCheckFlatAllocs(t *testing.T) {
	var s Schema
	if err := json.Unmarshal([]byte(customerCreate), &s); err != nil {
		t.Fatal(err)
	}
	flat, ok := canon.FlatParams(nil, "application/x-www-form-urlencoded", []byte(customerBody+"&source=tok_visa&address=&address[city]=x"), "")
	if ok {
		t.Fatal("a name both plain and bracketed must not be flat")
	}
	flat, _ = canon.FlatParams(nil, "application/x-www-form-urlencoded", []byte(customerBody+"&source=tok_visa&address[city]=x"), "")
	refs := testRefs()
	if n := testing.AllocsPerRun(100, func() {
		if p := CheckFlat(&s, flat, refs); p != nil {
			t.Fatal(p)
		}
	}); n != 0 {
		t.Errorf("allocations per valid CheckFlat: want 0, have %v", n)
	}
}
