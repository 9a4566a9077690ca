package durable

import (
	"bytes"
	"encoding/json"
)

// encode is json.Marshal without HTML escaping. json.Marshal rewrites
// < > & inside a json.RawMessage (an entity's body) as \u003c and so on:
// the same value to a JSON reader, but not the same bytes, and a twin
// answers an entity's body byte for byte, so after a restart it would
// answer otherwise than before.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil // Encode ends every value with one
}
