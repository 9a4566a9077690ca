// Package githubimport is the github dialect's inference for the importer
// (package openapi).
//
// GitHub's REST description is not shaped like the descriptions the
// importer infers resources from by their paths: its operationIds are
// category/verb-noun and carry x-github; parents are composite
// (/repos/{owner}/{repo}/issues/{issue_number}); lists are bare arrays
// paged by Link headers; updates are PATCHes; PUT and DELETE often act
// rather than store (star, merge) and answer 204; errors are {message,
// documentation_url} with a 422 validation_failed variant. So the
// stateful resources come from the overlay's operation anchors (get_op,
// create_ops, ...; overlays/github.toml in package openapi, which an
// import given no overlay takes), everything about them the description
// says is inferred from the anchored operations, and every other
// operation is a template route answering an example of its response,
// else a sample of its schema, or a bodiless 204.
package githubimport

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// Dialect is the github dialect's import hooks.
func Dialect() openapi.Dialect { return dialect{} }

type dialect struct{}

func (dialect) Name() string { return "github" }

// Detect reports a description in GitHub's style: most of its operations
// carry x-github.
func (dialect) Detect(doc *openapi3.T) bool {
	n, gh := 0, 0
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			n++
			if _, ok := op.Extensions["x-github"]; ok {
				gh++
			}
		}
	}
	return n > 0 && gh*2 > n
}

// DefaultOverlay is the shipped overlays/github.toml, which `make twins`
// passes too: without its anchors the import has no stateful resource.
func (dialect) DefaultOverlay() ([]byte, error) { return openapi.ShippedOverlay("github") }

func (dialect) Begin(im *openapi.Importer) (openapi.Hooks, error) {
	g := &ghImporter{Importer: im, doc: im.Doc(), ov: im.Overlay(), ops: im.Operations(), byID: map[string]openapi.Operation{}, report: im.Report()}
	for _, o := range g.ops {
		if o.Op.OperationID != "" {
			g.byID[o.Op.OperationID] = o
		}
	}
	for i, r := range g.ov.Resources {
		if r.GetOp == "" {
			return nil, fmt.Errorf("overlay: resources[%d] (%s): get_op is required in the github dialect (the operationId that reads one, e.g. \"issues/get\")", i, r.Name)
		}
	}
	g.names = newParamNames(g.ops)
	return g, nil
}

// ghImporter holds one GitHub-style import.
type ghImporter struct {
	*openapi.Importer
	doc    *openapi3.T
	ov     *openapi.Overlay
	ops    []openapi.Operation
	byID   map[string]openapi.Operation
	names  *paramNames
	report *openapi.Report
}

// Resources are the overlay's anchored resources.
func (g *ghImporter) Resources() ([]format.Resource, error) {
	var out []format.Resource
	for i := range g.ov.Resources {
		r, err := g.resource(&g.ov.Resources[i])
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Errors are GitHub's error shapes from its shared responses.
func (g *ghImporter) Errors() format.Errors { return g.errors() }

// Routes declares every operation no resource serves, sorted by path: a
// template answer of its first 2xx response (an example that validates,
// else a sample), a bodiless 204, or a declared route that answers a
// structured miss.
func (g *ghImporter) Routes(unclaimed []openapi.Operation) []format.Route {
	out := g.TemplateRoutes(unclaimed, g.names.rename,
		func(_ openapi.Operation, s *openapi3.SchemaRef, mt *openapi3.MediaType) any {
			return g.ExampleOr(s, mt)
		})
	openapi.SortRoutes(out)
	return out
}
