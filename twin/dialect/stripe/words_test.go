package stripe

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
)

// TestWord: Stripe's own sentences for each kind request validation
// finds, as its API sends them.
func TestWord(t *testing.T) {
	long := strings.Repeat("n", 256)
	for _, tc := range []struct {
		name string
		p    dialect.Problem
		want string
	}{
		{"unknown", dialect.Problem{Kind: dialect.UnknownParam, Param: "favourite_colour"}, "Received unknown parameter: favourite_colour"},
		{"unknown, several", dialect.Problem{Kind: dialect.UnknownParam, Param: "quantity", Names: []string{"quantity", "trial_end"}}, "Received unknown parameters: quantity, trial_end"},
		{"unknown nested", dialect.Problem{Kind: dialect.UnknownParam, Param: "card[foo]"}, "Received unknown parameter: card[foo]"},
		{"missing", dialect.Problem{Kind: dialect.MissingParam, Param: "amount"}, "Missing required param: amount."},
		{"missing nested", dialect.Problem{Kind: dialect.MissingParam, Param: "items[0][price]"}, "Missing required param: items[0][price]."},
		{"integer", dialect.Problem{Kind: dialect.InvalidInteger, Param: "quantity", Value: "many", Sent: "many"}, "Invalid integer: many"},
		{"integer from a hash", dialect.Problem{Kind: dialect.InvalidInteger, Param: "amount", Sent: map[string]any{"a": "1"}}, `Invalid integer: {"a"=>"1"}`},
		{"decimal", dialect.Problem{Kind: dialect.InvalidFloat, Param: "percentage", Value: "x", Sent: "x"}, "Invalid decimal: x"},
		{"boolean", dialect.Problem{Kind: dialect.InvalidBoolean, Param: "confirm", Value: "True", Sent: "True"}, "Invalid boolean: True"},
		{"string from a hash", dialect.Problem{Kind: dialect.InvalidString, Param: "card", Sent: map[string]any{"number": "4242", "exp_month": "12"}}, `Invalid string: {"exp_month"=>"12", "number"=>"4242"}`},
		{"object", dialect.Problem{Kind: dialect.ExpectedHash, Param: "shipping[address]", Value: "x", Sent: "x"}, "Invalid object"},
		{"array", dialect.Problem{Kind: dialect.ExpectedArray, Param: "items"}, "Invalid array"},
		{"enum", dialect.Problem{Kind: dialect.InvalidEnum, Param: "capture_method", Value: "later", Allowed: []string{"automatic", "automatic_async", "manual"}}, "Invalid capture_method: must be one of automatic, automatic_async, or manual"},
		{"too long", dialect.Problem{Kind: dialect.TooLong, Param: "custom_fields[0][name]", Value: long, Limit: 30, Have: 256}, "Invalid string: nnnnnnnnnn...nnnnnnnnnn; must be at most 30 characters"},
		{"too long, short", dialect.Problem{Kind: dialect.TooLong, Param: "currency", Value: "usdx", Limit: 3, Have: 4}, "Invalid string: usdx; must be at most 3 characters"},
		{"empty", dialect.Problem{Kind: dialect.EmptyValue, Param: "plan"}, "You passed an empty string for 'plan'. We assume empty values are an attempt to unset a parameter; however 'plan' cannot be unset. You should remove 'plan' from your request or supply a non-empty value."},
		{"no such", dialect.Problem{Kind: dialect.NoSuchObject, Param: "customer", Object: "customer", Value: "cus_x"}, "No such customer: 'cus_x'"},
	} {
		if have := New().Word(tc.p); have != tc.want {
			t.Errorf("%s:\nwant %s\nhave %s", tc.name, tc.want, have)
		}
	}
}
