package reqschema

import (
	"slices"

	"github.com/wraithdev/wraith/twin/canon"
)

// Accepts reports whether s takes a value of type typ, itself or as one
// of its alternatives. A nil s accepts nothing: without a schema the
// engine keeps its own rules.
func (s *Schema) Accepts(typ string) bool {
	if s == nil {
		return false
	}
	if s.Type == typ {
		return true
	}
	for _, alt := range s.AnyOf {
		if alt.Accepts(typ) {
			return true
		}
	}
	return false
}

// ItemsOf is the element schema of an array s, or of its array
// alternative; nil when s has none.
func (s *Schema) ItemsOf() *Schema {
	if s == nil {
		return nil
	}
	if s.Items != nil {
		return s.Items
	}
	for _, alt := range s.AnyOf {
		if it := alt.ItemsOf(); it != nil {
			return it
		}
	}
	return nil
}

// IsUnanswered reports Unanswered of a schema that may be nil.
func (s *Schema) IsUnanswered() bool { return s != nil && s.Unanswered }

// Answered is the Answer of an Unanswered schema that may be nil.
func (s *Schema) Answered() string {
	if s == nil || !s.Unanswered {
		return ""
	}
	return s.Answer
}

// RepeatedNames are s's top-level names that are Repeated arrays,
// sorted; nil for none.
func (s *Schema) RepeatedNames() []string {
	if s == nil {
		return nil
	}
	var names []string
	for name, m := range s.Properties {
		if m != nil && m.Repeated && m.kind() == "array" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Repeats reports whether a plain name of flat (name=value, no bracket
// key) is a Repeated array of s: sent once, it is a list of one, which
// only Check's tree makes, so the request must be read as a tree.
func (s *Schema) Repeats(flat []canon.FlatParam) bool {
	if s == nil {
		return false
	}
	for i := range flat {
		if flat[i].Key != "" {
			continue
		}
		if m := s.member(flat[i].Name); m != nil && m.Repeated && m.kind() == "array" {
			return true
		}
	}
	return false
}
