package stripe

import (
	"fmt"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
)

// Word words p as Stripe's API does (invalid_request_error messages as
// Stripe sends them): "Received unknown parameter: favourite_colour" or
// "Received unknown parameters: quantity, trial_end", "Invalid integer:
// many", "Invalid object", "Invalid array", and for
// a value too long, its first and last ten characters around "...".
// Kinds Stripe words no otherwise than Base are Base's.
func (Dialect) Word(p dialect.Problem) string {
	switch p.Kind {
	case dialect.UnknownParam:
		if len(p.Names) > 1 {
			return "Received unknown parameters: " + strings.Join(p.Names, ", ")
		}
		return "Received unknown parameter: " + p.Param
	case dialect.InvalidInteger:
		return "Invalid integer: " + p.Shown()
	case dialect.InvalidFloat:
		return "Invalid decimal: " + p.Shown()
	case dialect.InvalidBoolean:
		return "Invalid boolean: " + p.Shown()
	case dialect.InvalidString:
		return "Invalid string: " + p.Shown()
	case dialect.ExpectedHash:
		return "Invalid object"
	case dialect.ExpectedArray:
		return "Invalid array"
	case dialect.AlreadyExists:
		// "Coupon already exists." for a coupon created with an id taken.
		return sentence(p.Object) + " already exists."
	case dialect.InvalidEnum:
		return fmt.Sprintf("Invalid %s: must be one of %s", p.Param, dialect.OneOf(p.Allowed))
	case dialect.TooLong:
		return fmt.Sprintf("Invalid string: %s; must be at most %d characters", abbreviate(p.Value), p.Limit)
	case dialect.EmptyValue:
		return fmt.Sprintf("You passed an empty string for '%[1]s'. We assume empty values are an attempt to unset a parameter; "+
			"however '%[1]s' cannot be unset. You should remove '%[1]s' from your request or supply a non-empty value.", p.Param)
	}
	return dialect.Base{}.Word(p)
}

// abbreviate is s, or its first and last ten characters around "..."
// when it is longer than twenty, as Stripe shows a string too long.
func abbreviate(s string) string {
	r := []rune(s)
	if len(r) <= 20 {
		return s
	}
	return string(r[:10]) + "..." + string(r[len(r)-10:])
}

// sentence is a resource's name as the start of a sentence: coupon is
// Coupon, tax_rate is Tax rate.
func sentence(object string) string {
	if object == "" {
		return "Object"
	}
	s := strings.ReplaceAll(object, "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}
