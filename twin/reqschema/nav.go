package reqschema

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
