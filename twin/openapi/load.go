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
// alone. A Swagger 2.0 document is converted to OpenAPI 3 first (see
// swagger2), and any failure of it after that says it was one.
func load(spec []byte) (*openapi3.T, error) {
	var head struct {
		OpenAPI string `json:"openapi"`
		Swagger string `json:"swagger"`
	}
	isJSON := json.Unmarshal(spec, &head) == nil
	if (isJSON && head.Swagger != "" && head.OpenAPI == "") ||
		(!isJSON && swaggerKey.Match(spec) && !bytes.Contains(spec, []byte("openapi"))) {
		doc, err := swagger2(spec)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSwagger2, err)
		}
		return doc, nil
	}
	if err := checkStructure(spec); err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(spec)
	if err != nil && strings.Contains(err.Error(), "external reference") {
		if fixed, n := dropExternalMappings(spec); n > 0 {
			retry := openapi3.NewLoader()
			retry.IsExternalRefsAllowed = false
			if doc, err2 := retry.LoadFromData(fixed); err2 == nil {
				return checked(doc)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("not an OpenAPI 3.0 or 3.1 document: %w", err)
	}
	return checked(doc)
}

// checked refuses a document with nothing to serve and gives it the
// components every reader of it expects.
func checked(doc *openapi3.T) (*openapi3.T, error) {
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

// Parse reads a description as an import does (Swagger 2.0 converted,
// references resolved, external ones refused), for a client of a twin
// that checks its answers against the description.
func Parse(spec []byte) (*openapi3.T, error) { return load(spec) }

// OperationsOf lists a description's operations as an import reads them,
// by path then method.
func OperationsOf(doc *openapi3.T) []Operation { return operations(doc) }
