package openapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/dialect/rest"
	"github.com/wraithdev/wraith/twin/format"
)

// Rest is the default dialect, for a description of no provider a
// dialect knows (SPEC §13, §17): JSON bodies, lists as the description
// declares them, ids of the schema's type, 201 creates and 204 deletes
// where the description answers so, and RFC 9457 problem+json errors.
// Its resources are the collection/item path pairs whose item answers an
// object with a key (restschema.go); everything else is a template
// route answering an example of its response, else a sample. Paths are
// served under the servers' base path, without #fragments (ServedPath).
func Rest() Dialect { return restDialect{} }

type restDialect struct{}

func (restDialect) Name() string                { return "rest" }
func (restDialect) Detect(doc *openapi3.T) bool { return true }

func (restDialect) Begin(im *Importer) (Hooks, error) {
	if err := im.ov.RefuseAnchors("rest"); err != nil {
		return nil, err
	}
	im.allPII = true
	r := &restImport{im: im, trie: NewParamTrie(), served: map[string]string{}, byServed: map[string]map[string]Operation{}}
	for _, o := range im.ops {
		p := ServedPath(im.doc, o)
		r.served[o.Method+" "+o.Path] = p
		if r.byServed[p] == nil {
			r.byServed[p] = map[string]Operation{}
		}
		// The first operation of a method at a served path serves it;
		// a #fragment variant of it is reported in Routes.
		if _, dup := r.byServed[p][o.Method]; !dup {
			r.byServed[p][o.Method] = o
		}
	}
	if base := BasePath(im.doc, "", nil); base != "" {
		im.report.AddInferred("paths", "base", base, "servers[0].url", 1)
	}
	return r, nil
}

// restImport is one import in the rest dialect.
type restImport struct {
	im   *Importer
	trie *ParamTrie
	// served is each operation's served path ("METHOD path" as the
	// description writes it -> ServedPath), byServed the operations by
	// served path and method.
	served   map[string]string
	byServed map[string]map[string]Operation
	errs     *format.Errors // Errors, once inferred
	writes   []restWrite    // the resources' creates and updates (Requests)
}

func (r *restImport) path(o Operation) string { return r.served[o.Method+" "+o.Path] }

// Resources are the collection/item pairs (restPairs) whose item's read
// answers an object with a key.
func (r *restImport) Resources() ([]format.Resource, error) {
	im := r.im
	r.Errors()
	var out []format.Resource
	taken := map[string]bool{}
	pairs := restPairs(r.byServed)
	for _, o := range im.ops {
		r.trie.Add(r.path(o), false)
	}
	for _, p := range pairs {
		r.trie.Add(p.item, true)
	}
	r.trie.Assign()
	for _, p := range pairs {
		if im.Stopped() {
			return nil, nil
		}
		if fr, ok := r.resource(p, taken); ok {
			out = append(out, fr)
		}
	}
	return out, nil
}

// Errors are the twin's error answers (inferErrors), which Resources
// infers first: a resource's own not-found answer is one that differs.
func (r *restImport) Errors() format.Errors {
	if r.errs == nil {
		r.errs = r.inferErrors()
	}
	return *r.errs
}

// inferErrors is the description's own error schema (errorSchema), each
// kind's sentence in its message fields, else RFC 9457 problem details.
func (r *restImport) inferErrors() *format.Errors {
	type kind struct {
		answer          **format.Answer
		status          int
		title, sentence string
	}
	var e format.Errors
	kinds := []kind{
		{&e.NotFound, 404, "Not Found", notFoundSentence},
		{&e.InvalidRequest, 400, "Bad Request", "{message}"},
		{&e.Validation, validationStatus(r.im.ops), "Unprocessable Content", "{param}: {code}"},
		{&e.Idempotency, 409, "Conflict", "Idempotency-Key '{id}' was used with different parameters: use a new key"},
		{&e.RateLimited, 429, "Too Many Requests", "Too many requests: slow down"},
		{&e.UnexpectedState, 409, "Conflict", "This {object} is {status}: you cannot {action} it"},
	}
	if kinds[2].status == 400 {
		kinds[2].title = "Bad Request"
	}
	if s, n := errorSchema(r.im.ops, ""); s != nil {
		ok := true
		for _, k := range kinds {
			// The schema the description gives this status, when it has
			// a field for the sentence, else the API's error schema.
			if own, _ := errorSchema(r.im.ops, strconv.Itoa(k.status)); own != nil {
				if *k.answer = r.im.errorAnswer(own, k.status, k.sentence); *k.answer != nil {
					continue
				}
			}
			if *k.answer = r.im.errorAnswer(s, k.status, k.sentence); *k.answer == nil {
				ok = false
			}
		}
		if ok {
			r.im.report.AddInferred("errors", "schema", errorName(s), fmt.Sprintf("the error schema %d of the description's 4xx and default answers give", n), 0.8)
			return &e
		}
		r.im.report.AddUnresolved("errors", "the description's error schema "+errorName(s)+" has no free-text field to say what is wrong in: errors are RFC 9457 problem details", "medium")
	}
	r.im.report.AddInferred("errors", "schema", "problem+json", "the rest dialect's RFC 9457 problem details: the description names no error schema", 1)
	for _, k := range kinds {
		*k.answer = &format.Answer{Status: k.status, Body: Compact(map[string]any{"type": "about:blank", "title": k.title, "status": k.status, "detail": k.sentence})}
	}
	return &e
}

// notFoundSentence is what a not-found answer says.
const notFoundSentence = "No such {object}: '{id}'"

// validationStatus is the status a create missing a required field
// answers: 422 when the description's operations answer 422 more often
// than 400, else 400.
func validationStatus(ops []Operation) int {
	n400, n422 := 0, 0
	for _, o := range ops {
		if o.Op.Responses == nil {
			continue
		}
		if o.Op.Responses.Value("400") != nil {
			n400++
		}
		if o.Op.Responses.Value("422") != nil {
			n422++
		}
	}
	if n422 > n400 {
		return 422
	}
	return 400
}

// Routes are template answers: an example, else a sample. A #fragment
// variant of an operation another serves is reported, not routed: a
// request cannot say which of the two it is.
func (r *restImport) Routes(unclaimed []Operation) []format.Route {
	var ops []Operation
	for _, o := range unclaimed {
		p := r.path(o)
		if first := r.byServed[p][o.Method]; first.Path != o.Path {
			by := first.Method + " " + first.Path
			if res := r.im.ClaimedBy(first.Method, first.Path); res != "" {
				by += " (resource " + res + ")"
			}
			r.im.report.AddUnresolved(o.Method+" "+o.Path, "a #fragment variant of "+by+", which serves the request", "medium")
			continue
		}
		ops = append(ops, o)
	}
	return r.im.TemplateRoutes(ops,
		func(o Operation) (string, bool) { return r.rename(r.path(o)), true },
		func(_ Operation, s *openapi3.SchemaRef, mt *openapi3.MediaType) any { return r.im.restExample(s, mt) })
}

// rename names a served path's parameters as the twin's routes name
// them (ParamTrie); a segment whose parameter is followed by text
// ({Sid}.json) keeps the description's name, which the router takes.
func (r *restImport) rename(p string) string { return r.trie.Rename(p) }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pair is a collection path and its item path, as served.
type pair struct {
	coll, item string
	suffix     string // the item segment's text after its parameter (".json")
}

// restPairs are the served paths that are a collection beside its item:
// C and C/{p}, or, where the provider names a format in the path, C.ext
// and C/{p}.ext (Twilio's /Accounts/{AccountSid}/Calls.json and
// /Accounts/{AccountSid}/Calls/{Sid}.json). The smallest item path wins
// when a collection has several. Sorted by collection.
func restPairs(byServed map[string]map[string]Operation) []pair {
	best := map[string]pair{}
	for p := range byServed {
		i := strings.LastIndex(p, "/")
		if i <= 0 {
			continue
		}
		seg := p[i+1:]
		open, cl := strings.IndexByte(seg, '{'), strings.IndexByte(seg, '}')
		if open != 0 || cl < 2 || strings.ContainsAny(seg[cl+1:], "{}/") {
			continue
		}
		suffix := seg[cl+1:]
		coll := p[:i] + suffix
		if _, ok := byServed[coll]; !ok {
			continue
		}
		if prev, dup := best[coll]; !dup || p < prev.item {
			best[coll] = pair{coll: coll, item: p, suffix: suffix}
		}
	}
	out := make([]pair, 0, len(best))
	for _, k := range sortedPairKeys(best) {
		out = append(out, best[k])
	}
	return out
}

func sortedPairKeys(m map[string]pair) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FormPath: the rest dialect reads a form's PascalCase and dotted names as
// snake_case fields (rest.Params), and its request schemas say so.
func (r *restImport) FormPath(name string) []string { return rest.FormPath(name) }
