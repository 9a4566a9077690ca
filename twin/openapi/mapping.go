package openapi

import (
	"encoding/json"
	"strings"

	"go.yaml.in/yaml/v4"
)

// dropExternalMappings removes the discriminator.mapping entries that
// name another file ("models/droplet_actions.yml#/droplet_action", as
// DigitalOcean's bundled description still does), which an import that
// reads one file cannot resolve; a validator then picks the branch by
// component name, as it does without a mapping. It returns the document
// as JSON and how many entries it removed; 0 leaves the caller with its
// original error. Only mapping values are touched: an external $ref
// anywhere else is still refused.
func dropExternalMappings(spec []byte) ([]byte, int) {
	var doc any
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		return nil, 0
	}
	n := 0
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 256 {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			if d, ok := t["discriminator"].(map[string]any); ok {
				if m, ok := d["mapping"].(map[string]any); ok {
					for k, ref := range m {
						if s, ok := ref.(string); ok && !strings.HasPrefix(s, "#") {
							delete(m, k)
							n++
						}
					}
				}
			}
			for _, e := range t {
				walk(e, depth+1)
			}
		case []any:
			for _, e := range t {
				walk(e, depth+1)
			}
		}
	}
	walk(doc, 0)
	if n == 0 {
		return nil, 0
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, 0
	}
	return out, n
}
