package reqschema

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
)

// Parse reads a requests.json. It refuses another Format, and a schema
// of a type it does not know, naming the operation, rather than check
// requests against rules it would read wrong.
func Parse(data []byte) (*File, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("requests.json: %w", err)
	}
	if f.Format != Format {
		return nil, fmt.Errorf("requests.json is format %d, and this version of wraith reads format %d: import the twin again with this version", f.Format, Format)
	}
	for i, op := range f.Operations {
		if op.Method == "" || op.Path == "" {
			return nil, fmt.Errorf("requests.json: operation %d has no method or no path: each operation needs both", i)
		}
		if err := op.Params.valid(); err != nil {
			return nil, fmt.Errorf("requests.json: %s %s: %w", op.Method, op.Path, err)
		}
	}
	return &f, nil
}

// valid reports a type no rule reads, and makes a property with a null
// schema take anything, as an absent schema does.
func (s *Schema) valid() error {
	if s == nil {
		return nil
	}
	switch s.Type {
	case "", "object", "array", "string", "integer", "number", "boolean":
	default:
		return fmt.Errorf("schema type %q is none of object, array, string, integer, number and boolean", s.Type)
	}
	for name, p := range s.Properties {
		if p == nil {
			s.Properties[name] = &Schema{}
			continue
		}
		if err := p.valid(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, sub := range append([]*Schema{s.Additional, s.Items}, s.AnyOf...) {
		if err := sub.valid(); err != nil {
			return err
		}
	}
	return nil
}

// Marshal writes f as requests.json: operations sorted by path and then
// method, one to a line, each compact with its members in sorted order,
// so that the file a twin commits changes only where its operations do.
func (f *File) Marshal() ([]byte, error) {
	ops := slices.Clone(f.Operations)
	slices.SortStableFunc(ops, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Method, b.Method))
	})
	var b bytes.Buffer
	head, err := marshal(struct {
		Format int    `json:"format"`
		Source string `json:"source,omitempty"`
	}{f.Format, f.Source})
	if err != nil {
		return nil, err
	}
	b.Write(head[:len(head)-1]) // the object left open for the operations
	b.WriteString(`,"operations":[`)
	for i, op := range ops {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		line, err := marshal(op)
		if err != nil {
			return nil, fmt.Errorf("requests.json: %s %s: %w", op.Method, op.Path, err)
		}
		b.Write(line)
	}
	b.WriteString("\n]}\n")
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping: a description's < and
// > stay as they are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
