package reqschema

import (
	"encoding/json"
	"slices"
)

// shape is what kind of value was sent, to choose among alternatives
// the one whose problem to report when none matches.
type shape int

const (
	shapeText   shape = iota // a string
	shapeNumber              // a JSON number
	shapeBool                // a JSON boolean
	shapeNull                // JSON's null
	shapeMap                 // an object, or a form's bracketed keys
	shapeList                // a list
)

func shapeOf(v any) shape {
	switch v.(type) {
	case json.Number:
		return shapeNumber
	case bool:
		return shapeBool
	case nil:
		return shapeNull
	case map[string]any:
		return shapeMap
	case []any:
		return shapeList
	}
	return shapeText
}

// fits reports whether alt is of the value's shape: its problem is the
// one to report, for its words are about what the client meant to send.
// Form text fits every scalar type, since it is read in any of them; an
// alternative that takes only "" (how a form clears a field) fits only
// "".
func (c *checker) fits(alt *Schema, sh shape, empty bool) bool {
	kind := alt.kind()
	switch sh {
	case shapeText:
		if !empty && len(alt.Enum) > 0 && !slices.ContainsFunc(alt.Enum, func(e string) bool { return e != "" }) {
			return false
		}
		if kind == "string" {
			return true
		}
		return c.form && (kind == "integer" || kind == "number" || kind == "boolean")
	case shapeNumber:
		return kind == "integer" || kind == "number"
	case shapeBool:
		return kind == "boolean"
	case shapeNull:
		return alt.Nullable
	case shapeMap:
		return kind == "object"
	case shapeList:
		return kind == "array"
	}
	return false
}

// pick is the alternative whose problem to report for a value of shape
// sh that none matched: the first of its shape, else the first.
func (c *checker) pick(s *Schema, sh shape, empty bool) *Schema {
	for _, alt := range s.AnyOf {
		if alt != nil && c.fits(alt, sh, empty) {
			return alt
		}
	}
	if sh == shapeMap || sh == shapeList { // a list may name an object's members, and keys a list
		for _, alt := range s.AnyOf {
			if k := alt.kind(); alt != nil && (k == "object" || k == "array") {
				return alt
			}
		}
	}
	return s.AnyOf[0]
}

// anyText checks the string v against s's alternatives: the first that
// takes it answers; if none does, the problem is pick's.
func (c *checker) anyText(s *Schema, p *path, v string) (any, bool) {
	quiet := c.quiet
	c.quiet = true
	for _, alt := range s.AnyOf {
		if out, ok := c.text(alt, p, v); ok {
			c.quiet = quiet
			return out, true
		}
	}
	c.quiet = quiet
	if quiet {
		return nil, false
	}
	return c.text(c.pick(s, shapeText, v == ""), p, v)
}

// anyValue is anyText for a value that is no string.
func (c *checker) anyValue(s *Schema, p *path, v any) (any, bool) {
	if v == nil && s.takesNull() {
		return nil, true
	}
	quiet := c.quiet
	c.quiet = true
	for _, alt := range s.AnyOf {
		if out, ok := c.value(alt, p, v); ok {
			c.quiet = quiet
			return out, true
		}
	}
	c.quiet = quiet
	if quiet {
		return nil, false
	}
	return c.value(c.pick(s, shapeOf(v), false), p, v)
}

// The schema's own rules, which Check and CheckFlat share.

// kind is s's type, or, for a schema that names none, the type its
// other keywords imply: properties an object, items an array.
func (s *Schema) kind() string {
	if s == nil {
		return ""
	}
	switch {
	case s.Type != "":
		return s.Type
	case s.Properties != nil || s.Additional != nil || len(s.Required) > 0:
		return "object"
	case s.Items != nil:
		return "array"
	}
	return ""
}

// member is the schema of the object member name: its property, else
// Additional's; nil when s takes no such name.
func (s *Schema) member(name string) *Schema {
	if p, ok := s.Properties[name]; ok {
		if p == nil {
			return &Schema{} // a property with no schema takes anything
		}
		return p
	}
	return s.Additional
}

// At is the schema of property name of object schema s, looking through
// AnyOf for the object alternative; a name s does not list is
// Additional's schema. nil when s takes no such name.
func (s *Schema) At(name string) *Schema {
	if s == nil {
		return nil
	}
	if s.kind() == "object" {
		return s.member(name)
	}
	for _, alt := range s.AnyOf {
		if alt.kind() == "object" {
			if m := alt.member(name); m != nil {
				return m
			}
		}
	}
	return nil
}

// missing is the first required name, in sorted order, that has does
// not find.
func (s *Schema) missing(has func(string) bool) (string, bool) {
	first, found := "", false
	for _, r := range s.Required {
		if !has(r) && (!found || r < first) {
			first, found = r, true
		}
	}
	return first, found
}

// takesEmpty reports whether a form's "" is a value of s: it clears a
// nullable field, or one whose schema lists "".
func (s *Schema) takesEmpty() bool {
	if s.Nullable || slices.Contains(s.Enum, "") {
		return true
	}
	for _, alt := range s.AnyOf {
		if alt != nil && alt.takesEmpty() {
			return true
		}
	}
	return false
}

// takesNull reports whether s or one of its alternatives is nullable.
func (s *Schema) takesNull() bool {
	if s.Nullable {
		return true
	}
	for _, alt := range s.AnyOf {
		if alt != nil && alt.Nullable {
			return true
		}
	}
	return false
}
