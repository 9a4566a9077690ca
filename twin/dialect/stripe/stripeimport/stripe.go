// Package stripeimport is the stripe dialect's inference for the importer
// (package openapi): what Stripe's OpenAPI description says in its own
// way, read into a twin.
//
//   - resources: a top-level collection path with list (GET) or create
//     (POST) and an item path collection/{param} with retrieve (GET),
//     whose answer is an object with an id and a one-value "object" enum
//     (Stripe's x-resourceId marks the same schemas); polymorphic answers
//     (anyOf) take the branch whose object enum the collection's list
//     holds; nested collections under a parent's item keep their parents;
//   - deletes: a tombstone when the answer is a deleted_* schema
//     ({"deleted": true}), none when the description has no DELETE;
//   - actions: POST {item}/{verb} answering the resource;
//   - id prefixes: a majority vote over the ids of the fixtures and the
//     description's examples; placeholders (obj_123) and natural keys do
//     not vote;
//   - skeletons: a fixture (stripe-mock's fixtures file, by x-resourceId)
//     or example first, else the importer's sampler, repaired against the
//     schema, then the overlay's skeleton_patch;
//   - error shapes: Stripe's {"error": {...}}, sampled from the most
//     common error response schema with Stripe's wording;
//   - template answers: a list envelope with no items, else an instance.
//
// The overlay (overlays/stripe.toml in package openapi) adds state
// machines, create rules and nested defaults.
package stripeimport

import (
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// Dialect is the stripe dialect's import hooks.
func Dialect() openapi.Dialect { return dialect{} }

type dialect struct{}

func (dialect) Name() string { return "stripe" }

// Detect reports a description that marks its schemas with Stripe's
// x-resourceId or x-stripeResource.
func (dialect) Detect(doc *openapi3.T) bool {
	if doc.Components == nil {
		return false
	}
	for _, s := range doc.Components.Schemas {
		if s == nil || s.Value == nil {
			continue
		}
		for _, ext := range []string{"x-resourceId", "x-stripeResource"} {
			if _, ok := s.Value.Extensions[ext]; ok {
				return true
			}
		}
	}
	return false
}

func (dialect) Begin(im *openapi.Importer) (openapi.Hooks, error) {
	if err := im.Overlay().RefuseAnchors("stripe"); err != nil {
		return nil, err
	}
	fx, err := parseFixtures(im.Fixtures())
	if err != nil {
		return nil, err
	}
	return &importer{
		Importer: im,
		doc:      im.Doc(),
		ov:       im.Overlay(),
		report:   im.Report(),
		fx:       fx,
		events:   readEventTypes(im.Doc()),
		byName:   map[string]*resource{},
		repaired: map[string]bool{},
	}, nil
}

// importer holds one import's inference. Every collection in it is read
// in sorted order.
type importer struct {
	*openapi.Importer
	doc       *openapi3.T
	ov        *openapi.Overlay
	report    *openapi.Report
	fx        fixtures
	events    eventTypes           // every event type the description lists (events.go)
	resources []*resource          // sorted by name
	byName    map[string]*resource // resource name -> resource
	examples  []any                // objects from the description's examples
	repaired  map[string]bool      // types whose fixture needed conform
}

// Resources infers the resources, then writes fixtures/baseline.json of
// their fixtures.
func (im *importer) Resources() ([]format.Resource, error) {
	im.infer()
	if im.Stopped() {
		return nil, nil // the pipeline reports the sampler's error
	}
	out := make([]format.Resource, 0, len(im.resources))
	for _, r := range im.resources {
		out = append(out, im.manifestResource(r))
	}
	if set := im.baseline(); set != nil {
		im.AddFile("fixtures/baseline.json", set)
	}
	return out, nil
}

// Errors are Stripe's error shapes, from the description's error schema.
func (im *importer) Errors() format.Errors { return im.errorShapes() }

// Routes are the template routes, their parameters named by a trie in
// which every resource's item position is {id}.
func (im *importer) Routes(unclaimed []openapi.Operation) []format.Route {
	trie := openapi.NewParamTrie()
	for _, o := range im.Operations() {
		trie.Add(o.Path, false)
	}
	for _, r := range im.resources {
		if !r.nested {
			trie.Add(r.collection+"/{"+r.itemParam+"}", true)
		}
	}
	trie.Assign()
	return im.TemplateRoutes(unclaimed,
		func(o openapi.Operation) (string, bool) { return trie.Rename(o.Path), true },
		func(o openapi.Operation, s *openapi3.SchemaRef, _ *openapi3.MediaType) any {
			return im.templateBody(s, o.Path)
		})
}
