package dialect

import (
	"encoding/json"
	"testing"
)

// TestBaseWords: Base's plain sentences for the kinds request
// validation finds.
func TestBaseWords(t *testing.T) {
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{Kind: UnknownParam, Param: "card[foo]"}, "Received unknown parameter: card[foo]"},
		{Problem{Kind: MissingParam, Param: "items[0][price]"}, "Missing required param: items[0][price]."},
		{Problem{Kind: InvalidEnum, Param: "capture_method", Value: "later", Allowed: []string{"automatic", "manual"}}, "Invalid capture_method: must be one of automatic or manual"},
		{Problem{Kind: TooLong, Param: "currency", Value: "usdx", Limit: 3, Have: 4}, "Invalid currency: must be at most 3 characters, and this one has 4."},
		{Problem{Kind: InvalidString, Param: "currency", Sent: map[string]any{"code": "usd"}}, `Invalid value for currency: expected a string, not {"code"=>"usd"}.`},
		{Problem{Kind: ExpectedArray, Param: "items"}, "Invalid value for items: expected an array."},
		{Problem{Kind: EmptyValue, Param: "amount"}, "Invalid value for amount: it cannot be unset, so it cannot be empty."},
		{Problem{Kind: InvalidInteger, Param: "amount", Value: "many", Sent: "many"}, "Invalid integer: many"},
	} {
		if have := (Base{}).Word(tc.p); have != tc.want {
			t.Errorf("kind %d:\nwant %s\nhave %s", tc.p.Kind, tc.want, have)
		}
	}
}

// TestInspect: values in Ruby's notation, bounded.
func TestInspect(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{nil, "nil"},
		{"517", `"517"`},
		{json.Number("1.5"), "1.5"},
		{true, "true"},
		{map[string]any{"b": "2", "a": []any{"x", nil}}, `{"a"=>["x", nil], "b"=>"2"}`},
	} {
		if have := Inspect(tc.v); have != tc.want {
			t.Errorf("Inspect(%#v): want %s, have %s", tc.v, tc.want, have)
		}
	}
	big := map[string]any{}
	for _, k := range []string{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccc", "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"} {
		big[k] = k
	}
	if have := Inspect(big); len(have) != inspectLimit+3 || have[inspectLimit:] != "..." {
		t.Errorf("a large hash: want %d bytes ending in ..., have %d: %s", inspectLimit+3, len(have), have)
	}
	if have, want := OneOf([]string{"a", "b", "c"}), "a, b, or c"; have != want {
		t.Errorf("OneOf: want %s, have %s", want, have)
	}
}
