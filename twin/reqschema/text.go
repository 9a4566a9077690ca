package reqschema

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
)

// Value reads a form string in s's type, as Check does: a json.Number
// for an integer or a number, a bool for a boolean, else the string.
// The problem has no Param: the caller knows where v was.
func (s *Schema) Value(v string) (any, *dialect.Problem) {
	c := checker{form: true, build: true}
	out, ok := c.text(s, nil, v)
	if !ok {
		return nil, c.problem
	}
	return out, nil
}

// text checks the string v at s: in a form, read in s's type; in JSON,
// a string, which only a string schema takes.
func (c *checker) text(s *Schema, p *path, v string) (any, bool) {
	if s == nil {
		return c.str(v), true
	}
	if v == "" && c.form && s.takesEmpty() {
		return c.str(v), true // "" clears the field: the engine's to apply
	}
	if len(s.AnyOf) > 0 {
		return c.anyText(s, p, v)
	}
	kind := s.kind()
	if v == "" && c.form && ((kind != "string" && kind != "") || len(s.Enum) > 0 || s.Ref != "") {
		return c.fail(dialect.Problem{Kind: dialect.EmptyValue}, p)
	}
	switch kind {
	case "":
		return c.str(v), true
	case "string":
		return c.stringValue(s, p, v)
	case "integer":
		if c.form {
			return c.integer(s, p, v, false)
		}
	case "number":
		if c.form {
			if !canon.Number(v) {
				return c.fail(dialect.Problem{Kind: dialect.InvalidFloat, Value: v, Sent: v, Nullable: s.Nullable}, p)
			}
			return c.enum(s, p, v, c.number(v))
		}
	case "boolean":
		if c.form {
			// Stripe's v1 API reads True and FALSE as booleans too (the
			// Python and .NET SDKs sent their languages' spellings for
			// years); only its v2 API wants lower case.
			switch {
			case strings.EqualFold(v, "true"):
				return true, true
			case strings.EqualFold(v, "false"):
				return false, true
			}
			return c.fail(dialect.Problem{Kind: dialect.InvalidBoolean, Value: v, Sent: v, Nullable: s.Nullable}, p)
		}
	}
	return c.wrongType(s, p, v)
}

// stringValue checks a string at a string schema: its enum, its length
// in characters, a decimal's format, and the entity it names.
func (c *checker) stringValue(s *Schema, p *path, v string) (any, bool) {
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, v) {
		return c.fail(dialect.Problem{Kind: dialect.InvalidEnum, Value: v, Sent: v, Allowed: shown(s.Enum)}, p)
	}
	if s.MaxLength > 0 && len(v) > s.MaxLength { // bytes bound characters from above
		if n := utf8.RuneCountInString(v); n > s.MaxLength {
			return c.fail(dialect.Problem{Kind: dialect.TooLong, Value: v, Sent: v, Limit: s.MaxLength, Have: n}, p)
		}
	}
	if s.Format == "decimal" && !isDecimal(v) {
		return c.fail(dialect.Problem{Kind: dialect.InvalidFloat, Value: v, Sent: v, Nullable: s.Nullable}, p)
	}
	if s.Ref != "" && c.refs != nil && !c.refs.Exists(s.Ref, v) {
		return c.fail(dialect.Problem{Kind: dialect.NoSuchObject, Object: s.Ref, Value: v}, p)
	}
	return c.str(v), true
}

// integer reads text, a form string or a JSON number's, as a 64-bit
// integer written in decimal: 1.5, 1e3 and 0x10 are none.
func (c *checker) integer(s *Schema, p *path, text string, fromJSON bool) (any, bool) {
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		// Sent is boxed here, not by the caller: boxing a string allocates.
		var sent any = text
		if fromJSON {
			sent = json.Number(text)
		}
		return c.fail(dialect.Problem{Kind: dialect.InvalidInteger, Value: text, Sent: sent, Nullable: s.Nullable}, p)
	}
	var out any
	if c.build {
		out = json.Number(strconv.FormatInt(n, 10))
	}
	return c.enum(s, p, text, out)
}

// enum checks the text of a number against s's enum, and answers out.
func (c *checker) enum(s *Schema, p *path, text string, out any) (any, bool) {
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, text) {
		return c.fail(dialect.Problem{Kind: dialect.InvalidEnum, Value: text, Sent: text, Allowed: shown(s.Enum)}, p)
	}
	return out, true
}

// str and number box a typed value only when the tree is built: boxing
// a string allocates, and CheckFlat must not.
func (c *checker) str(v string) any {
	if !c.build {
		return nil
	}
	return v
}

func (c *checker) number(v string) any {
	if !c.build {
		return nil
	}
	return json.Number(v)
}

// isDecimal reports whether v is a decimal number as Stripe's decimal
// strings are written: an optional minus, digits, and optionally a point
// and more digits (12.5, -0.001, 3).
func isDecimal(v string) bool {
	if v != "" && v[0] == '-' {
		v = v[1:]
	}
	digits, point := 0, false
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] >= '0' && v[i] <= '9':
			digits++
		case v[i] == '.' && !point && digits > 0 && i < len(v)-1:
			point = true
		default:
			return false
		}
	}
	return digits > 0
}

// shown is an enum's values as a refusal lists them: without "", which
// stands for clearing the field, not for a value (Stripe lists exempt,
// none, or reverse, not ", exempt, none, or reverse").
func shown(enum []string) []string {
	out := make([]string, 0, len(enum))
	for _, e := range enum {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}
