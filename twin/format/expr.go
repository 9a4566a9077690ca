package format

import (
	"fmt"
	"strconv"
	"strings"
)

// Expr is a computed Set value: "$now", "$now+SECS", "$.field",
// "$text.field" or "$secret".
type Expr struct {
	Now    bool
	Offset int64  // seconds added to now
	Field  string // copy this field's value
	// Text is "$text.field": Field's value written as a string (a number
	// as its digits, a string as it is, null as null), where a provider
	// answers a field derived from another in another type: Stripe's
	// unit_amount_decimal is unit_amount as a decimal string.
	Text bool
	// Secret is a client secret shaped as the provider shapes it,
	// "<id>_secret_<token>", the token derived from the object's id: ids
	// are per session and deterministic, so secrets are too, and none
	// ever comes from a recording.
	Secret bool
	// Null is "$null", a null value: TOML has none.
	Null bool
	// IDPrefix is "$id:PREFIX", a new id with that prefix from the
	// session's generator: the id of an object nested in a resource (a
	// subscription's items), in nested_defaults only.
	IDPrefix string
}

// ParseExpr parses a Set value that starts with "$".
func ParseExpr(s string) (Expr, error) {
	switch {
	case s == "$null":
		return Expr{Null: true}, nil
	case s == "$now":
		return Expr{Now: true}, nil
	case strings.HasPrefix(s, "$now+"):
		n, err := strconv.ParseInt(s[len("$now+"):], 10, 64)
		if err != nil || n < 0 {
			return Expr{}, fmt.Errorf("%q: want $now+SECONDS with a whole number", s)
		}
		return Expr{Now: true, Offset: n}, nil
	case strings.HasPrefix(s, "$.") && len(s) > 2:
		return Expr{Field: s[2:]}, nil
	case strings.HasPrefix(s, "$text.") && len(s) > len("$text."):
		return Expr{Field: s[len("$text."):], Text: true}, nil
	case s == "$secret":
		return Expr{Secret: true}, nil
	case strings.HasPrefix(s, "$id:") && len(s) > len("$id:"):
		return Expr{IDPrefix: s[len("$id:"):]}, nil
	}
	return Expr{}, fmt.Errorf("%q: want $now, $now+SECONDS, $.field, $text.field, $secret, $null, $id:PREFIX (nested_defaults), or $$ for a literal $", s)
}
