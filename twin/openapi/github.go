package openapi

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/route"
)

// GitHub's REST description is not Stripe-shaped: its operationIds are
// category/verb-noun and carry x-github; parents are composite
// (/repos/{owner}/{repo}/issues/{issue_number}); lists are bare arrays
// paged by Link headers; updates are PATCHes; PUT and DELETE often act
// rather than store (star, merge) and answer 204; errors are
// {message, documentation_url} with a 422 validation_failed variant. A
// description in that style is imported by importGitHub: the stateful
// resources come from the overlay's operation anchors (overlays/
// github.toml), everything about them the description says is inferred
// from the anchored operations, and every other operation is a template
// route answering an example of its response, else a sample of its
// schema, or a bodiless 204.

// githubStyle reports a description in GitHub's style: most of its
// operations carry x-github.
func githubStyle(doc *openapi3.T) bool {
	n, gh := 0, 0
	for _, o := range operations(doc) {
		n++
		if _, ok := o.op.Extensions["x-github"]; ok {
			gh++
		}
	}
	return n > 0 && gh*2 > n
}

// ghImporter holds one GitHub-style import.
type ghImporter struct {
	doc     *openapi3.T
	ov      *githubOverlay
	opts    Options
	ops     []operation
	byID    map[string]operation
	claimed map[string]string // "METHOD path" (the description's) -> resource
	names   *paramNames
	report  *Report
	sp      *sampler
}

func importGitHub(sp *sampler, doc *openapi3.T, opts Options) (*Result, error) {
	ov, err := parseGitHubOverlay(opts.Overlay)
	if err != nil {
		return nil, err
	}
	g := &ghImporter{doc: doc, ov: ov, opts: opts, ops: operations(doc), byID: map[string]operation{}, claimed: map[string]string{}, report: newReport(), sp: sp}
	for _, o := range g.ops {
		if o.op.OperationID != "" {
			g.byID[o.op.OperationID] = o
		}
	}
	g.names = newParamNames(g.ops)
	m := format.Manifest{
		Format:      format.Version,
		Name:        firstOf(opts.Name, ov.Twin.Name, "imported"),
		Provider:    firstOf(opts.Provider, ov.Twin.Provider, "github"),
		Upstream:    firstOf(ov.Twin.Upstream, serverOf(doc)),
		Description: firstOf(ov.Twin.Description, strings.TrimSpace(fmt.Sprintf("imported from %s %s", doc.Info.Title, doc.Info.Version))),
		Errors:      g.errors(),
	}
	if !format.ValidName(m.Name) {
		return nil, fmt.Errorf("twin name %q must match %s: pass --name", m.Name, format.NamePattern)
	}
	if err := stamp(&m, g.report, ov.Source.Date, doc.Info, opts.Modified); err != nil {
		return nil, err
	}
	for i := range ov.Resources {
		r, err := g.resource(&ov.Resources[i])
		if err != nil {
			return nil, err
		}
		m.Resources = append(m.Resources, r)
	}
	im := &importer{doc: doc, ov: &Overlay{}, report: g.report}
	m.PII.Verbatim = mergeSorted(im.verbatim(), ov.PII.Verbatim)
	m.Routes = g.routes()
	if sp.err != nil {
		return nil, sp.err
	}

	rep := g.report
	rep.Source = ReportSource{OpenAPI: doc.OpenAPI, Title: doc.Info.Title, Version: doc.Info.Version}
	rep.Counts.Operations = len(g.ops)
	rep.Counts.Resources = len(m.Resources)
	var buf bytes.Buffer
	if err := format.WriteManifest(&buf, &m); err != nil {
		return nil, err
	}
	files := map[string][]byte{"twin.toml": buf.Bytes(), "import-report.json": rep.encode()}
	return &Result{Files: files, Report: rep}, nil
}

// routes declares every operation no resource serves: a template answer
// of its first 2xx response, a bodiless 204, or, with no JSON answer to
// serve, a declared route that answers a structured miss.
func (g *ghImporter) routes() []format.Route {
	var out []format.Route
	seen := map[string]string{}
	c := &g.report.Counts
	for _, o := range g.ops {
		if g.sp.stopped() {
			return nil
		}
		if _, ok := g.claimed[o.method+" "+o.path]; ok {
			c.Stateful++
			continue
		}
		path, ok := g.names.rename(o)
		if !ok {
			c.Skipped++
			g.report.unresolved(o.method+" "+o.path, fmt.Sprintf("not served: more than %d path parameters: the router cannot serve it, requests get a route miss", route.MaxParams), "high")
			continue
		}
		if prev, dup := seen[o.method+" "+path]; dup {
			c.Unserved++
			g.report.unresolved(o.method+" "+o.path, "the same route as "+prev+" once its parameters are named alike: that operation's answer serves both", "medium")
			continue
		}
		if skipUnservable(g.report, o, path) {
			continue
		}
		seen[o.method+" "+path] = o.method + " " + o.path
		rt := format.Route{Method: o.method, Path: path}
		status, s, mt := success(o.op)
		switch {
		case s != nil && s.Value != nil:
			rt.Body = compact(exampleOr(g.sp, s, mt))
			if status != 200 {
				rt.Status = status
			}
			c.Template++
		case status == 204:
			rt.Status = 204
			c.Template++
		default:
			c.Unserved++
		}
		out = append(out, rt)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// exampleOr is the media type's first example (by name) when it
// validates against the schema, else the sampler's instance: GitHub's
// examples are real answers, but a few disagree with their schemas, and a
// twin must answer what the description allows.
func exampleOr(sp *sampler, s *openapi3.SchemaRef, mt *openapi3.MediaType) any {
	for _, ex := range examplesOf(mt) {
		if validates(s, ex) {
			return normalize(ex)
		}
	}
	return withFormats(sp.sample(s), s, 0)
}

// withFormats fills the sampler's empty date-time and date strings with a
// fixed instant, so a template answer passes format validation.
func withFormats(v any, ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > maxSampleDepth {
		return v
	}
	s := ref.Value
	switch t := v.(type) {
	case string:
		switch {
		case t != "":
		case s.Format == "date-time":
			return "2011-01-26T19:01:12Z"
		case s.Format == "date":
			return "2011-01-26"
		}
	case map[string]any:
		for _, part := range s.AllOf {
			withFormats(t, part, depth+1)
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p := s.Properties[k]; p != nil {
				t[k] = withFormats(t[k], p, depth+1)
			}
		}
	}
	return v
}

// examplesOf lists a media type's examples: example, then examples by
// name, "default" first.
func examplesOf(mt *openapi3.MediaType) []any {
	if mt == nil {
		return nil
	}
	var out []any
	if mt.Example != nil {
		out = append(out, mt.Example)
	}
	keys := slices.Sorted(maps.Keys(mt.Examples))
	sort.SliceStable(keys, func(i, j int) bool { return keys[i] == "default" && keys[j] != "default" })
	for _, k := range keys {
		if ex := mt.Examples[k]; ex != nil && ex.Value != nil && ex.Value.Value != nil {
			out = append(out, ex.Value.Value)
		}
	}
	return out
}

func serverOf(doc *openapi3.T) string {
	if len(doc.Servers) > 0 && doc.Servers[0] != nil {
		return doc.Servers[0].URL
	}
	return ""
}
