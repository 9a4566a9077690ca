package openapi

import (
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/route"
)

// Importer is one import in progress, as the pipeline hands it to a
// dialect's hooks: the description, the overlay, the operations and who
// serves each, the report, and the import's sampler, whose budgets bound
// every sample the import makes. Every collection in it is read in sorted
// order, so that an import is a pure function of its inputs.
type Importer struct {
	doc     *openapi3.T
	ov      *Overlay
	opts    Options
	ops     []Operation
	claimed map[string]string // "METHOD path" (the description's) -> resource
	report  *Report
	sp      *sampler
	files   map[string][]byte // beside twin.toml and import-report.json
	// allPII serves every PII-shaped name verbatim (see verbatimNames),
	// for a dialect whose twin holds only what its agents send.
	allPII bool
	// branching is how many oneBranch searches are under way, one
	// inside the other.
	branching int
}

func newImporter(sp *sampler, doc *openapi3.T, ov *Overlay, opts Options) *Importer {
	return &Importer{doc: doc, ov: ov, opts: opts, sp: sp, ops: operations(doc), claimed: map[string]string{}, report: newReport(), files: map[string][]byte{}}
}

// Doc is the description, its references resolved.
func (im *Importer) Doc() *openapi3.T { return im.doc }

// Overlay is the import's overlay; never nil.
func (im *Importer) Overlay() *Overlay { return im.ov }

// Fixtures is the fixtures file the import was given (Options.Fixtures),
// for a dialect that reads one.
func (im *Importer) Fixtures() []byte { return im.opts.Fixtures }

// Operations are the description's operations, by path then method. The
// slice is the importer's: read it, do not change it.
func (im *Importer) Operations() []Operation { return im.ops }

// Report is the import's report, for what a hook infers and what it
// leaves unresolved.
func (im *Importer) Report() *Report { return im.report }

// Claim says that resource serves an operation (method and path as the
// description writes them) statefully, so it gets no route of its own.
func (im *Importer) Claim(method, path, resource string) {
	im.claimed[method+" "+path] = resource
}

// ClaimedBy is the resource that claimed an operation, or "".
func (im *Importer) ClaimedBy(method, path string) string { return im.claimed[method+" "+path] }

// AddFile adds a file to the twin (fixtures/baseline.json).
func (im *Importer) AddFile(path string, b []byte) { im.files[path] = b }

// Sample is a deterministic instance of s (the first enum value, null for
// a nullable, an object of its required properties, [] for arrays, 0,
// false and ""), within the import's budgets: past one, it is nil and
// the import fails with the sampler's error.
func (im *Importer) Sample(s *openapi3.SchemaRef) any { return im.sp.sample(s) }

// Stopped reports whether the import must stop (its context ended or a
// budget was passed): a hook's loop looks at it between operations.
func (im *Importer) Stopped() bool { return im.sp.stopped() }

// Conform repairs v (a fixture or example) where it contradicts its
// schema, and says how many values it changed (see conform).
func (im *Importer) Conform(v any, s *openapi3.SchemaRef) (any, int) { return conform(im.sp, v, s, 0) }

// Skip leaves an operation out of the twin, counted as skipped, with the
// reason in the report.
func (im *Importer) Skip(o Operation, reason string) {
	im.report.Counts.Skipped++
	im.report.AddUnresolved(o.Method+" "+o.Path, reason, "high")
}

// Unservable reports whether the twin cannot serve an operation at the
// route template path, and if so skips it with the router's reason. The
// check is the router's own parse (route.Router Add), the one format.Load
// and the engine run over the twin's whole route table, so what an import
// writes is what serve serves.
func (im *Importer) Unservable(o Operation, path string) bool {
	err := route.New[struct{}]().Add(o.Method, path, struct{}{})
	if err == nil {
		return false
	}
	im.Skip(o, fmt.Sprintf("not served: %v; the twin's router matches whole segments, so requests to it get a route miss", err))
	return true
}

// TemplateRoutes declares operations no resource serves, in order: at
// the route template rename gives (false: more parameters than the router
// takes, skipped), a template answer of body's value for its first 2xx
// response, a bodiless 204, or, with no JSON answer to serve, a declared
// route that answers a structured miss. Two operations that rename gives
// one route are served by the first's answer.
func (im *Importer) TemplateRoutes(ops []Operation, rename func(Operation) (string, bool), body func(o Operation, s *openapi3.SchemaRef, mt *openapi3.MediaType) any) []format.Route {
	var out []format.Route
	seen := map[string]string{}
	safe := map[string]bool{} // the overlay's safe_ops routed
	for _, o := range ops {
		if im.sp.stopped() {
			return nil
		}
		path, ok := rename(o)
		if !ok {
			im.Skip(o, fmt.Sprintf("not served: more than %d path parameters: the router cannot serve it, requests get a route miss", route.MaxParams))
			continue
		}
		if prev, dup := seen[o.Method+" "+path]; dup {
			im.report.AddUnresolved(o.Method+" "+o.Path, "the same route as "+prev+" once its parameters are named alike: that operation's answer serves both", "medium")
			continue
		}
		if im.Unservable(o, path) {
			continue
		}
		seen[o.Method+" "+path] = o.Method + " " + o.Path
		rt := format.Route{Method: o.Method, Path: path}
		switch status, s, mt := Success(o.Op); {
		case s != nil && s.Value != nil:
			rt.Body = Compact(body(o, s, mt))
			if status != 200 {
				rt.Status = status
			}
			markList(&rt, s)
		case status == 204:
			rt.Status = 204
		case binarySuccess(o.Op, "application/pdf"):
			rt.ContentType, rt.Body = "application/pdf", minimalPDF
		}
		rt.Safe = im.safeOp(o, safe)
		out = append(out, rt)
	}
	im.unusedSafeOps(safe)
	return out
}

// SortRoutes sorts routes by path, then method.
func SortRoutes(rts []format.Route) {
	sort.SliceStable(rts, func(i, j int) bool {
		if rts[i].Path != rts[j].Path {
			return rts[i].Path < rts[j].Path
		}
		return rts[i].Method < rts[j].Method
	})
}

// ExampleOr is the media type's first example (see Examples) when it
// validates against the schema, else the sampler's instance with its
// empty dates filled: a twin must answer what the description allows,
// and a description's examples sometimes disagree with its schemas.
func (im *Importer) ExampleOr(s *openapi3.SchemaRef, mt *openapi3.MediaType) any {
	for _, ex := range Examples(mt) {
		if validates(s, ex) {
			return Normalize(ex)
		}
	}
	return withFormats(im.sp.sample(s), s, 0)
}

// declared sets what the overlay declares of each resource the dialect
// inferred (see OverlayResource), and reports the overlay's entries for
// resources it did not infer.
func (im *Importer) declared(resources []format.Resource, dialect string) {
	inferred := map[string]bool{}
	for i := range resources {
		inferred[resources[i].Name] = true
		if r := im.ov.Resource(resources[i].Name); r != nil {
			r.declare(&resources[i])
		}
	}
	for _, r := range im.ov.Resources {
		if !inferred[r.Name] {
			im.report.AddUnresolved(r.Name, "the overlay amends a resource the "+dialect+" dialect did not infer from the description: its entry is not used", "high")
		}
	}
}

// verbatim is [pii] verbatim: the PII-shaped names the import infers a
// token would break, reported, and the overlay's.
func (im *Importer) verbatim() []string {
	v := verbatimNames(im.doc, im.allPII)
	switch {
	case len(v) > 0 && im.allPII:
		im.report.AddInferred("pii", "verbatim", strings.Join(v, ","), "PII-shaped names: the twin holds only what its agents send, so nothing is tokenized", 1)
	case len(v) > 0:
		im.report.AddInferred("pii", "verbatim", strings.Join(v, ","), "PII-shaped names whose schema a token would break (enums, patterns)", 1)
	}
	if out := MergeSorted(v, im.ov.PII.Verbatim); len(out) > 0 {
		return out
	}
	return nil
}

// count sets the report's source and counts: an operation is stateful
// when claimed, a template when its route answers (a body, or a status
// such as a bodiless 204), skipped when a hook skipped it, and otherwise
// unserved (declared without an answer, or served by another's route).
func (im *Importer) count(m *format.Manifest, unclaimed int) {
	im.report.Source = ReportSource{OpenAPI: im.doc.OpenAPI, Title: im.doc.Info.Title, Version: im.doc.Info.Version}
	c := &im.report.Counts
	c.Operations = len(im.ops)
	c.Resources = len(m.Resources)
	c.Stateful = len(im.ops) - unclaimed
	for _, rt := range m.Routes {
		if rt.Body != "" || rt.Status != 0 {
			c.Template++
		}
	}
	c.Unserved = unclaimed - c.Skipped - c.Template
}

// binarySuccess reports whether op's first success answers media type mt
// (and no JSON), as Stripe's quote PDF does.
func binarySuccess(op *openapi3.Operation, mt string) bool {
	if op.Responses == nil {
		return false
	}
	for _, c := range op.Responses.Keys() {
		if r := op.Responses.Value(c); len(c) == 3 && c[0] == '2' && r != nil && r.Value != nil {
			return r.Value.Content.Get(mt) != nil && JSONMedia(r.Value.Content) == nil
		}
	}
	return false
}

// minimalPDF is the template of an answer in PDF: one empty page, which
// PDF readers open (the SDKs read it as bytes).
const minimalPDF = "%PDF-1.4\n" +
	"1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n" +
	"2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj\n" +
	"3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]>> endobj\n" +
	"trailer <</Root 1 0 R>>\n%%EOF\n"
