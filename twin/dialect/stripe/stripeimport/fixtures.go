package stripeimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// fixtures are example objects by resource id: stripe-mock's
// fixtures3.json, {"resources": {"<x-resourceId>": {...object...}}}.
type fixtures map[string]map[string]any

func parseFixtures(b []byte) (fixtures, error) {
	if len(b) == 0 {
		return fixtures{}, nil
	}
	var f struct {
		Resources map[string]json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("fixtures: want {\"resources\": {...}}: %w", err)
	}
	out := fixtures{}
	for k, raw := range f.Resources {
		var o map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&o); err != nil {
			return nil, fmt.Errorf("fixtures: resources.%s is not an object: %w", k, err)
		}
		out[k] = o
	}
	return out, nil
}

func (f fixtures) keys() []string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
