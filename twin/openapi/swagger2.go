package openapi

import (
	"encoding/json"
	"fmt"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// swagger2 converts a Swagger 2.0 document (JSON or YAML) to OpenAPI 3
// with kin-openapi's converter, which moves definitions to
// components.schemas, formData parameters to form request bodies and
// host+basePath to servers, then resolves the result as load resolves a
// 3.x document. The structure checks (reference chains, YAML aliases)
// run on the original text first, since the converter resolves nothing
// and the loader's resolution is what they bound.
func swagger2(spec []byte) (*openapi3.T, error) {
	if err := checkStructure(spec); err != nil {
		return nil, err
	}
	var doc2 openapi2.T
	if err := json.Unmarshal(spec, &doc2); err != nil {
		// YAML: decoded to plain values, then read as the JSON it is.
		var v any
		if yerr := yaml.Unmarshal(spec, &v); yerr != nil {
			return nil, fmt.Errorf("not a JSON or YAML document: %w", yerr)
		}
		j, jerr := json.Marshal(v)
		if jerr != nil {
			return nil, fmt.Errorf("not a Swagger 2.0 document: %w", jerr)
		}
		if err := json.Unmarshal(j, &doc2); err != nil {
			return nil, fmt.Errorf("not a Swagger 2.0 document: %w", err)
		}
	}
	doc3, err := openapi2conv.ToV3(&doc2)
	if err != nil {
		return nil, fmt.Errorf("convert to OpenAPI 3: %w", err)
	}
	out, err := json.Marshal(doc3)
	if err != nil {
		return nil, fmt.Errorf("convert to OpenAPI 3: %w", err)
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(out)
	if err != nil {
		return nil, fmt.Errorf("its OpenAPI 3 conversion does not load: %w", err)
	}
	return checked(doc)
}
