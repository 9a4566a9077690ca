package reqschema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
)

// testSchema is a create of the shapes Stripe's descriptions use: scalars
// of each type, an enum, a bounded string, a decimal string, metadata,
// a nested object, an array of objects, expandable references (an id or
// a hash) and a field a form clears with "".
func testSchema(tb testing.TB) *Schema {
	tb.Helper()
	const doc = `{
	"type": "object",
	"required": ["amount", "currency"],
	"properties": {
		"amount": {"type": "integer"},
		"currency": {"type": "string", "max_length": 3},
		"percentage": {"type": "number"},
		"unit_amount_decimal": {"type": "string", "format": "decimal"},
		"confirm": {"type": "boolean"},
		"capture_method": {"type": "string", "enum": ["automatic", "automatic_async", "manual"]},
		"description": {"type": "string", "max_length": 10},
		"metadata": {"anyOf": null, "type": "object", "additional": {"type": "string"}},
		"card": {"type": "object", "required": ["number"], "properties": {"number": {"type": "string"}, "exp_month": {"type": "integer"}}},
		"items": {"type": "array", "items": {"type": "object", "required": ["price"], "properties": {"price": {"type": "string", "ref": "price"}, "quantity": {"type": "integer"}}}},
		"tags": {"type": "array", "items": {"type": "string"}},
		"permissions": {"type": "array", "items": {"type": "string", "enum": ["send", "leave"]}, "repeated": true},
		"customer": {"type": "string", "ref": "customer"},
		"source": {"any_of": [{"type": "string", "ref": "source"}, {"type": "object", "properties": {"number": {"type": "string"}}}]},
		"shipping": {"any_of": [{"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}, {"type": "string", "enum": [""]}]},
		"trial_end": {"any_of": [{"type": "integer", "format": "unix-time"}, {"type": "string", "enum": ["now"]}]},
		"days_until_due": {"type": "integer", "nullable": true},
		"anything": {}
	}
}`
	var s Schema
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		tb.Fatal(err)
	}
	return &s
}

// known is a fake session: the entities a reference may name.
type known map[string]bool

func (k known) Exists(resource, id string) bool { return k[resource+"/"+id] }

func testRefs() known {
	return known{"customer/cus_1": true, "price/price_1": true, "source/tok_visa": true}
}

// formCases are form bodies and what Check makes of them: the typed
// parameters (as JSON), or the problem. Every case is run through both
// Check and, where canon reads the body as flat, CheckFlat.
var formCases = []struct {
	name, body string
	want       string          // the typed parameters, as JSON, when valid
	problem    dialect.Problem // Kind and Param, and what else the case sets
}{
	// typing
	{name: "integer", body: "amount=30&currency=usd", want: `{"amount":30,"currency":"usd"}`},
	{name: "integer canonical", body: "amount=007&currency=usd", want: `{"amount":7,"currency":"usd"}`},
	{name: "number kept as written", body: "amount=1&currency=usd&percentage=16.0000", want: `{"amount":1,"currency":"usd","percentage":16.0000}`},
	{name: "decimal string", body: "amount=1&currency=usd&unit_amount_decimal=12.345", want: `{"amount":1,"currency":"usd","unit_amount_decimal":"12.345"}`},
	{name: "boolean", body: "amount=1&currency=usd&confirm=true", want: `{"amount":1,"confirm":true,"currency":"usd"}`},
	{name: "enum", body: "amount=1&currency=usd&capture_method=manual", want: `{"amount":1,"capture_method":"manual","currency":"usd"}`},
	{name: "metadata keyed by numbers", body: "amount=1&currency=usd&metadata[0]=a&metadata[1]=b", want: `{"amount":1,"currency":"usd","metadata":{"0":"a","1":"b"}}`},
	{name: "metadata", body: "amount=1&currency=usd&metadata[order]=7", want: `{"amount":1,"currency":"usd","metadata":{"order":"7"}}`},
	{name: "nested object", body: "amount=1&currency=usd&card[number]=4242&card[exp_month]=12", want: `{"amount":1,"card":{"exp_month":12,"number":"4242"},"currency":"usd"}`},
	{name: "array of objects", body: "amount=1&currency=usd&items[0][price]=price_1&items[0][quantity]=2", want: `{"amount":1,"currency":"usd","items":[{"price":"price_1","quantity":2}]}`},
	{name: "array appended", body: "amount=1&currency=usd&tags[]=a&tags[]=b", want: `{"amount":1,"currency":"usd","tags":["a","b"]}`},
	{name: "array by sparse index", body: "amount=1&currency=usd&tags[3]=b&tags[1]=a", want: `{"amount":1,"currency":"usd","tags":["a","b"]}`},
	{name: "reference", body: "amount=1&currency=usd&customer=cus_1", want: `{"amount":1,"currency":"usd","customer":"cus_1"}`},
	{name: "expandable as id", body: "amount=1&currency=usd&source=tok_visa", want: `{"amount":1,"currency":"usd","source":"tok_visa"}`},
	{name: "expandable as hash", body: "amount=1&currency=usd&source[number]=4242", want: `{"amount":1,"currency":"usd","source":{"number":"4242"}}`},
	{name: "object or empty: empty", body: "amount=1&currency=usd&shipping=", want: `{"amount":1,"currency":"usd","shipping":""}`},
	{name: "object or empty: object", body: "amount=1&currency=usd&shipping[name]=Ada", want: `{"amount":1,"currency":"usd","shipping":{"name":"Ada"}}`},
	{name: "integer or now: integer", body: "amount=1&currency=usd&trial_end=1700000000", want: `{"amount":1,"currency":"usd","trial_end":1700000000}`},
	{name: "integer or now: now", body: "amount=1&currency=usd&trial_end=now", want: `{"amount":1,"currency":"usd","trial_end":"now"}`},
	{name: "nullable cleared", body: "amount=1&currency=usd&days_until_due=", want: `{"amount":1,"currency":"usd","days_until_due":""}`},
	{name: "anything", body: "amount=1&currency=usd&anything[a][b]=c", want: `{"amount":1,"anything":{"a":{"b":"c"}},"currency":"usd"}`},
	{name: "empty plain string", body: "amount=1&currency=", want: `{"amount":1,"currency":""}`},

	// problems
	{name: "unknown", body: "amount=1&currency=usd&favourite_colour=blue", problem: dialect.Problem{Kind: dialect.UnknownParam, Param: "favourite_colour", Names: []string{"favourite_colour"}}},
	{name: "unknown nested", body: "amount=1&currency=usd&card[foo]=x&card[number]=1", problem: dialect.Problem{Kind: dialect.UnknownParam, Param: "card[foo]", Names: []string{"card[foo]"}}},
	{name: "unknown, all of them", body: "amount=1&currency=usd&trial_end=1&quantity=2&zeta[a]=1", problem: dialect.Problem{Kind: dialect.UnknownParam, Param: "quantity", Names: []string{"quantity", "zeta"}}},
	{name: "unknown nested, all of them", body: "amount=1&currency=usd&card[number]=1&card[foo]=x&card[bar]=y", problem: dialect.Problem{Kind: dialect.UnknownParam, Param: "card[bar]", Names: []string{"card[bar]", "card[foo]"}}},
	{name: "unknown before a value's problem", body: "amount=many&currency=usd&zeta=1", problem: dialect.Problem{Kind: dialect.UnknownParam, Param: "zeta", Names: []string{"zeta"}}},
	{name: "unknown hash", body: "amount=1&currency=usd&colour[a]=b", problem: dialect.Problem{Kind: dialect.UnknownParam, Param: "colour", Names: []string{"colour"}}},
	{name: "missing", body: "currency=usd", problem: dialect.Problem{Kind: dialect.MissingParam, Param: "amount"}},
	{name: "missing nested", body: "amount=1&currency=usd&card[exp_month]=1", problem: dialect.Problem{Kind: dialect.MissingParam, Param: "card[number]"}},
	{name: "missing in an array", body: "amount=1&currency=usd&items[0][quantity]=1", problem: dialect.Problem{Kind: dialect.MissingParam, Param: "items[0][price]"}},
	{name: "missing sorted", body: "description=x", problem: dialect.Problem{Kind: dialect.MissingParam, Param: "amount"}},
	{name: "unknown before missing", body: "zebra=1", problem: dialect.Problem{Kind: dialect.UnknownParam, Param: "zebra", Names: []string{"zebra"}}},
	{name: "names in order", body: "currency=toolong&amount=many", problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "amount", Value: "many", Sent: "many"}},
	{name: "invalid integer", body: "amount=many&currency=usd", problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "amount", Value: "many", Sent: "many"}},
	{name: "integer with a fraction", body: "amount=10.99&currency=usd", problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "amount", Value: "10.99", Sent: "10.99"}},
	{name: "integer with an exponent", body: "amount=1e3&currency=usd", problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "amount", Value: "1e3", Sent: "1e3"}},
	{name: "invalid number", body: "amount=1&currency=usd&percentage=x", problem: dialect.Problem{Kind: dialect.InvalidFloat, Param: "percentage", Value: "x", Sent: "x"}},
	{name: "invalid decimal", body: "amount=1&currency=usd&unit_amount_decimal=1.2.3", problem: dialect.Problem{Kind: dialect.InvalidFloat, Param: "unit_amount_decimal", Value: "1.2.3", Sent: "1.2.3"}},
	{name: "invalid boolean", body: "amount=1&currency=usd&confirm=maybe", problem: dialect.Problem{Kind: dialect.InvalidBoolean, Param: "confirm", Value: "maybe", Sent: "maybe"}},
	{name: "boolean in any case", body: "amount=1&currency=usd&confirm=True", want: `{"amount":1,"confirm":true,"currency":"usd"}`},
	{name: "boolean is no number", body: "amount=1&currency=usd&confirm=1", problem: dialect.Problem{Kind: dialect.InvalidBoolean, Param: "confirm", Value: "1", Sent: "1"}},
	{name: "invalid enum", body: "amount=1&currency=usd&capture_method=later", problem: dialect.Problem{Kind: dialect.InvalidEnum, Param: "capture_method", Value: "later", Sent: "later", Allowed: []string{"automatic", "automatic_async", "manual"}}},
	{name: "too long", body: "amount=1&currency=usdollars", problem: dialect.Problem{Kind: dialect.TooLong, Param: "currency", Value: "usdollars", Sent: "usdollars", Limit: 3, Have: 9}},
	{name: "length in characters", body: "amount=1&currency=%C3%A9%C3%A9%C3%A9", want: `{"amount":1,"currency":"ééé"}`},
	{name: "scalar for a hash", body: "amount=1&currency=usd&metadata=x", problem: dialect.Problem{Kind: dialect.ExpectedHash, Param: "metadata", Value: "x", Sent: "x"}},
	{name: "hash for a string", body: "amount=1&currency[code]=usd", problem: dialect.Problem{Kind: dialect.InvalidString, Param: "currency", Sent: map[string]any{"code": "usd"}}},
	{name: "hash for an integer", body: "amount[a]=1&currency=usd", problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "amount", Sent: map[string]any{"a": "1"}}},
	{name: "scalar for an array", body: "amount=1&currency=usd&items=x", problem: dialect.Problem{Kind: dialect.ExpectedArray, Param: "items", Value: "x", Sent: "x"}},
	{name: "scalar for a repeated array", body: "amount=1&currency=usd&permissions=send", want: `{"amount":1,"currency":"usd","permissions":["send"]}`},
	{name: "scalar for a repeated array, checked as its element", body: "amount=1&currency=usd&permissions=stay", problem: dialect.Problem{Kind: dialect.InvalidEnum, Param: "permissions[0]", Value: "stay", Sent: "stay", Allowed: []string{"send", "leave"}}},
	{name: "hash for an array", body: "amount=1&currency=usd&items[price]=x", problem: dialect.Problem{Kind: dialect.ExpectedArray, Param: "items", Sent: map[string]any{"price": "x"}}},
	{name: "nested integer", body: "amount=1&currency=usd&items[0][price]=price_1&items[0][quantity]=lots", problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "items[0][quantity]", Value: "lots", Sent: "lots"}},
	{name: "empty integer", body: "amount=&currency=usd", problem: dialect.Problem{Kind: dialect.EmptyValue, Param: "amount"}},
	{name: "empty enum", body: "amount=1&currency=usd&capture_method=", problem: dialect.Problem{Kind: dialect.EmptyValue, Param: "capture_method"}},
	{name: "empty reference", body: "amount=1&currency=usd&customer=", problem: dialect.Problem{Kind: dialect.EmptyValue, Param: "customer"}},
	{name: "no such customer", body: "amount=1&currency=usd&customer=cus_x", problem: dialect.Problem{Kind: dialect.NoSuchObject, Param: "customer", Object: "customer", Value: "cus_x"}},
	{name: "no such price", body: "amount=1&currency=usd&items[0][price]=price_x", problem: dialect.Problem{Kind: dialect.NoSuchObject, Param: "items[0][price]", Object: "price", Value: "price_x"}},
	{name: "expandable: an unknown id", body: "amount=1&currency=usd&source=tok_x", problem: dialect.Problem{Kind: dialect.NoSuchObject, Param: "source", Object: "source", Value: "tok_x"}},
	{name: "expandable: an unknown member", body: "amount=1&currency=usd&source[cvc]=1", problem: dialect.Problem{Kind: dialect.UnknownParam, Param: "source[cvc]", Names: []string{"source[cvc]"}}},
	{name: "object or empty: a string", body: "amount=1&currency=usd&shipping=x", problem: dialect.Problem{Kind: dialect.ExpectedHash, Param: "shipping", Value: "x", Sent: "x"}},
	{name: "object or empty: missing member", body: "amount=1&currency=usd&shipping[phone]=1", problem: dialect.Problem{Kind: dialect.UnknownParam, Param: "shipping[phone]", Names: []string{"shipping[phone]"}}},
	{name: "integer or now: neither", body: "amount=1&currency=usd&trial_end=soon", problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "trial_end", Value: "soon", Sent: "soon"}},
	{name: "nullable: not an integer", body: "amount=1&currency=usd&days_until_due=soon", problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "days_until_due", Value: "soon", Sent: "soon", Nullable: true}},
}

// TestCheckForm: each case's typed parameters or problem, from Check and
// from CheckFlat, which must agree wherever canon reads the body flat.
func TestCheckForm(t *testing.T) {
	s := testSchema(t)
	flatCases := 0
	for _, tc := range formCases {
		t.Run(tc.name, func(t *testing.T) {
			params, err := canon.Params("application/x-www-form-urlencoded", []byte(tc.body), "")
			if err != nil {
				t.Fatal(err)
			}
			before := deepCopy(params)
			typed, prob := Check(s, params, true, testRefs())
			if !reflect.DeepEqual(before, any(params)) {
				t.Errorf("Check changed its params: want %v, have %v", before, params)
			}
			checkAnswer(t, tc.want, tc.problem, typed, prob)
			if v := Validate(s, params, true, testRefs()); !reflect.DeepEqual(v, prob) {
				t.Errorf("Validate: want Check's problem %+v, have %+v", prob, v)
			}
			flat, ok := canon.FlatParams(nil, "application/x-www-form-urlencoded", []byte(tc.body), "")
			if !ok {
				return
			}
			flatCases++
			if have := CheckFlat(s, flat, testRefs()); !reflect.DeepEqual(have, prob) {
				t.Errorf("CheckFlat and Check disagree: Check %+v, CheckFlat %+v", prob, have)
			}
		})
	}
	if flatCases < 20 {
		t.Errorf("want at least 20 cases through CheckFlat, have %d", flatCases)
	}
}

// checkAnswer compares an answer of Check with a case's.
func checkAnswer(tb testing.TB, want string, problem dialect.Problem, typed map[string]any, prob *dialect.Problem) {
	tb.Helper()
	if want == "" {
		if prob == nil {
			tb.Fatalf("want problem %+v, have none and %v", problem, typed)
		}
		if !reflect.DeepEqual(*prob, problem) {
			tb.Errorf("problem:\nwant %+v\nhave %+v", problem, *prob)
		}
		return
	}
	if prob != nil {
		tb.Fatalf("want %s, have problem %+v", want, *prob)
	}
	have, err := json.Marshal(typed)
	if err != nil {
		tb.Fatal(err)
	}
	if string(have) != want {
		tb.Errorf("typed:\nwant %s\nhave %s", want, have)
	}
}

// TestCheckJSON: a JSON body's values are JSON's types, checked as they
// are: no text is read as a number, and null only where nullable.
func TestCheckJSON(t *testing.T) {
	s := testSchema(t)
	for _, tc := range []struct {
		name, body string
		want       string
		problem    dialect.Problem
	}{
		{name: "valid", body: `{"amount":30,"currency":"usd","confirm":false,"percentage":1.5,"items":[{"price":"price_1","quantity":2}],"metadata":{"a":"b"}}`,
			want: `{"amount":30,"confirm":false,"currency":"usd","items":[{"price":"price_1","quantity":2}],"metadata":{"a":"b"},"percentage":1.5}`},
		{name: "null where nullable", body: `{"amount":1,"currency":"usd","days_until_due":null}`, want: `{"amount":1,"currency":"usd","days_until_due":null}`},
		{name: "expandable as hash", body: `{"amount":1,"currency":"usd","source":{"number":"4242"}}`, want: `{"amount":1,"currency":"usd","source":{"number":"4242"}}`},
		{name: "integer or now", body: `{"amount":1,"currency":"usd","trial_end":"now"}`, want: `{"amount":1,"currency":"usd","trial_end":"now"}`},
		{name: "integer as text", body: `{"amount":"30","currency":"usd"}`, problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "amount", Value: "30", Sent: "30"}},
		{name: "integer with a fraction", body: `{"amount":1.5,"currency":"usd"}`, problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "amount", Value: "1.5", Sent: json.Number("1.5")}},
		{name: "boolean as text", body: `{"amount":1,"currency":"usd","confirm":"true"}`, problem: dialect.Problem{Kind: dialect.InvalidBoolean, Param: "confirm", Value: "true", Sent: "true"}},
		{name: "number as text", body: `{"amount":1,"currency":"usd","percentage":"1.5"}`, problem: dialect.Problem{Kind: dialect.InvalidFloat, Param: "percentage", Value: "1.5", Sent: "1.5"}},
		{name: "invalid decimal", body: `{"amount":1,"currency":"usd","unit_amount_decimal":"1.2.3"}`, problem: dialect.Problem{Kind: dialect.InvalidFloat, Param: "unit_amount_decimal", Value: "1.2.3", Sent: "1.2.3"}},
		{name: "decimal as a number", body: `{"amount":1,"currency":"usd","unit_amount_decimal":1.5}`, problem: dialect.Problem{Kind: dialect.InvalidString, Param: "unit_amount_decimal", Value: "1.5", Sent: json.Number("1.5")}},
		{name: "number for a string", body: `{"amount":1,"currency":840}`, problem: dialect.Problem{Kind: dialect.InvalidString, Param: "currency", Value: "840", Sent: json.Number("840")}},
		{name: "null not nullable", body: `{"amount":null,"currency":"usd"}`, problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "amount"}},
		{name: "null for nullable anyOf-less string", body: `{"amount":1,"currency":null}`, problem: dialect.Problem{Kind: dialect.InvalidString, Param: "currency"}},
		{name: "unknown", body: `{"amount":1,"currency":"usd","favourite_colour":"blue"}`, problem: dialect.Problem{Kind: dialect.UnknownParam, Param: "favourite_colour", Names: []string{"favourite_colour"}}},
		{name: "missing", body: `{"currency":"usd"}`, problem: dialect.Problem{Kind: dialect.MissingParam, Param: "amount"}},
		{name: "enum", body: `{"amount":1,"currency":"usd","capture_method":"later"}`, problem: dialect.Problem{Kind: dialect.InvalidEnum, Param: "capture_method", Value: "later", Sent: "later", Allowed: []string{"automatic", "automatic_async", "manual"}}},
		{name: "too long", body: `{"amount":1,"currency":"usdx"}`, problem: dialect.Problem{Kind: dialect.TooLong, Param: "currency", Value: "usdx", Sent: "usdx", Limit: 3, Have: 4}},
		{name: "array wanted", body: `{"amount":1,"currency":"usd","tags":"a"}`, problem: dialect.Problem{Kind: dialect.ExpectedArray, Param: "tags", Value: "a", Sent: "a"}},
		{name: "a JSON string is no repeated array", body: `{"amount":1,"currency":"usd","permissions":"send"}`, problem: dialect.Problem{Kind: dialect.ExpectedArray, Param: "permissions", Value: "send", Sent: "send"}},
		{name: "hash wanted", body: `{"amount":1,"currency":"usd","card":["4242"]}`, problem: dialect.Problem{Kind: dialect.ExpectedHash, Param: "card", Sent: []any{"4242"}}},
		{name: "no such customer", body: `{"amount":1,"currency":"usd","customer":"cus_x"}`, problem: dialect.Problem{Kind: dialect.NoSuchObject, Param: "customer", Object: "customer", Value: "cus_x"}},
		{name: "expandable: a number", body: `{"amount":1,"currency":"usd","source":7}`, problem: dialect.Problem{Kind: dialect.InvalidString, Param: "source", Value: "7", Sent: json.Number("7")}},
		{name: "empty string is a string", body: `{"amount":1,"currency":"usd","shipping":""}`, want: `{"amount":1,"currency":"usd","shipping":""}`},
		{name: "empty string is no integer", body: `{"amount":1,"currency":"usd","days_until_due":""}`, problem: dialect.Problem{Kind: dialect.InvalidInteger, Param: "days_until_due", Sent: "", Nullable: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params, err := canon.Params("application/json", []byte(tc.body), "")
			if err != nil {
				t.Fatal(err)
			}
			typed, prob := Check(s, params, false, testRefs())
			checkAnswer(t, tc.want, tc.problem, typed, prob)
			if v := Validate(s, params, false, testRefs()); !reflect.DeepEqual(v, prob) {
				t.Errorf("Validate: want Check's problem %+v, have %+v", prob, v)
			}
		})
	}
}

// TestNoRefs: without a Lookup, references are not checked.
func TestNoRefs(t *testing.T) {
	params := map[string]any{"amount": "1", "currency": "usd", "customer": "cus_x"}
	if _, prob := Check(testSchema(t), params, true, nil); prob != nil {
		t.Errorf("want no problem without refs, have %+v", *prob)
	}
}

// TestAtAndValue: At looks through anyOf for the object alternative and
// answers Additional's schema for other names; Value reads text as
// Check does.
func TestAtAndValue(t *testing.T) {
	s := testSchema(t)
	if have := s.At("amount"); have == nil || have.Type != "integer" {
		t.Errorf("At(amount): want the integer schema, have %+v", have)
	}
	if have := s.At("shipping").At("name"); have == nil || have.Type != "string" {
		t.Errorf("At(shipping).At(name): want the string schema through anyOf, have %+v", have)
	}
	if have := s.At("metadata").At("anything"); have == nil || have.Type != "string" {
		t.Errorf("At(metadata).At(anything): want Additional's schema, have %+v", have)
	}
	if have := s.At("nothing"); have != nil {
		t.Errorf("At(nothing): want nil, have %+v", have)
	}
	for _, tc := range []struct {
		field, text string
		want        any
		kind        dialect.Kind // of the problem, when want is nil
	}{
		{"amount", "30", json.Number("30"), 0},
		{"percentage", "16.0000", json.Number("16.0000"), 0},
		{"confirm", "false", false, 0},
		{"trial_end", "now", "now", 0},
		{"days_until_due", "", "", 0},
		{"amount", "x", nil, dialect.InvalidInteger},
		{"confirm", "1", nil, dialect.InvalidBoolean},
	} {
		have, prob := s.At(tc.field).Value(tc.text)
		switch {
		case tc.want == nil && (prob == nil || prob.Kind != tc.kind || prob.Param != ""):
			t.Errorf("Value(%s=%q): want a problem of kind %d and no Param, have %v %+v", tc.field, tc.text, tc.kind, have, prob)
		case tc.want != nil && (prob != nil || have != tc.want):
			t.Errorf("Value(%s=%q): want %#v, have %#v %+v", tc.field, tc.text, tc.want, have, prob)
		}
	}
}

// TestCheckCopies: the typed tree shares nothing with the request's, so
// the engine may change it.
func TestCheckCopies(t *testing.T) {
	params := map[string]any{"amount": "1", "currency": "usd", "anything": map[string]any{"a": []any{"b"}}, "metadata": map[string]any{"k": "v"}}
	typed, prob := Check(testSchema(t), params, true, nil)
	if prob != nil {
		t.Fatal(*prob)
	}
	typed["anything"].(map[string]any)["a"].([]any)[0] = "changed"
	typed["metadata"].(map[string]any)["k"] = "changed"
	if params["anything"].(map[string]any)["a"].([]any)[0] != "b" || params["metadata"].(map[string]any)["k"] != "v" {
		t.Errorf("a change to the typed tree reached the request's: %v", params)
	}
}

// TestRepeats: a flat request is read as a tree exactly when a plain
// name of it is a Repeated array, whose one value only the tree makes a
// list of.
func TestRepeats(t *testing.T) {
	s := testSchema(t)
	for _, tc := range []struct {
		body string
		want bool
	}{
		{"amount=1&currency=usd&permissions=send", true},
		{"amount=1&currency=usd&tags=x", false},        // an array, not Repeated
		{"amount=1&currency=usd&metadata[k]=v", false}, // a bracketed name
		{"amount=1&currency=usd", false},
	} {
		flat, ok := canon.FlatParams(nil, "application/x-www-form-urlencoded", []byte(tc.body), "")
		if !ok {
			t.Fatalf("%s: not flat", tc.body)
		}
		if have := s.Repeats(flat); have != tc.want {
			t.Errorf("%s: Repeats want %v, have %v", tc.body, tc.want, have)
		}
	}
	if (*Schema)(nil).Repeats(nil) {
		t.Error("a nil schema repeats nothing")
	}
}
