package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// swaggerKey finds a Swagger 2.0 document's version key, in JSON or YAML.
var swaggerKey = regexp.MustCompile(`(?m)(^swagger\s*:|"swagger"\s*:)`)

// load parses and resolves a description. External references are
// refused: an import reads one file, so its result depends on that file
// alone.
func load(spec []byte) (*openapi3.T, error) {
	var head struct {
		OpenAPI string `json:"openapi"`
		Swagger string `json:"swagger"`
	}
	if json.Unmarshal(spec, &head) == nil && head.Swagger != "" && head.OpenAPI == "" {
		return nil, ErrSwagger2
	}
	if head.OpenAPI == "" && swaggerKey.Match(spec) && !bytes.Contains(spec, []byte("openapi")) {
		return nil, ErrSwagger2
	}
	if err := checkStructure(spec); err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		return nil, fmt.Errorf("not an OpenAPI 3.0 or 3.1 document: %w", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		if doc.OpenAPI == "" {
			return nil, fmt.Errorf("not an OpenAPI document: it has no openapi version field (want \"openapi\": \"3.0.x\" or \"3.1.x\")")
		}
		return nil, fmt.Errorf("OpenAPI version %q: wraith imports 3.0 and 3.1", doc.OpenAPI)
	}
	if doc.Paths == nil || doc.Paths.Len() == 0 {
		return nil, fmt.Errorf("the document has no paths: there is nothing to serve")
	}
	if doc.Components == nil {
		// components is optional (a description may inline every schema);
		// an empty one here keeps every reader of it from a nil check.
		doc.Components = &openapi3.Components{}
	}
	return doc, nil
}

// Operation is one method on one path of the description.
type Operation struct {
	Method string
	Path   string // as the description writes it
	Op     *openapi3.Operation
}

// operations lists the description's operations, by path then method.
func operations(doc *openapi3.T) []Operation {
	var out []Operation
	paths := doc.Paths.Keys()
	sort.Strings(paths)
	for _, p := range paths {
		item := doc.Paths.Value(p)
		ops := item.Operations()
		methods := make([]string, 0, len(ops))
		for m := range ops {
			methods = append(methods, m)
		}
		sort.Strings(methods)
		for _, m := range methods {
			out = append(out, Operation{Method: m, Path: p, Op: ops[m]})
		}
	}
	return out
}

// Success returns an operation's first 2xx response: its status, and its
// JSON schema and media type when it has one; 0 and nils when none.
func Success(op *openapi3.Operation) (int, *openapi3.SchemaRef, *openapi3.MediaType) {
	if op.Responses == nil {
		return 0, nil, nil
	}
	codes := op.Responses.Keys()
	sort.Strings(codes)
	for _, c := range codes {
		if len(c) != 3 || c[0] != '2' {
			continue
		}
		r := op.Responses.Value(c)
		var status int
		fmt.Sscanf(c, "%d", &status)
		if r == nil || r.Value == nil {
			return status, nil, nil
		}
		mt := JSONMedia(r.Value.Content)
		if mt == nil || mt.Schema == nil {
			return status, nil, nil
		}
		return status, mt.Schema, mt
	}
	return 0, nil, nil
}

// JSONMedia is content's application/json, else the first JSON media
// type by name, or nil.
func JSONMedia(c openapi3.Content) *openapi3.MediaType {
	if mt := c.Get("application/json"); mt != nil {
		return mt
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.Contains(k, "json") {
			return c[k]
		}
	}
	return nil
}
