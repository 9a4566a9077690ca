package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
)

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// TestStripeConformance drives every operation of Stripe's description
// against a served stripe twin, the stateful ones on an entity the
// session created, and validates each answer that is not a miss against
// the description's response for that operation.
func TestStripeConformance(t *testing.T) {
	doc := stripeDoc(t)
	srv := startTwin(t, "stripe", "--clock", "deterministic", "--clock-epoch", "1700000000", "--fixture", "baseline")
	tw, err := format.Load(mustSub(t, "stripe"), "embedded twin stripe")
	if err != nil {
		t.Fatal(err)
	}
	// Stateful operations go in the order a client would send them: create,
	// read, update, actions, list, delete. A resource without create is
	// read at its baseline fixture entity.
	ids := fixtureIDs(t, tw) // collection -> created or fixture id
	reqs := requestsOf(t, tw)
	type step struct {
		method, specPath string
		rank             int
	}
	var steps []step
	collOf := map[string]string{}
	for _, r := range tw.Manifest.Resources {
		for _, c := range append(append([]string{r.Collection}, r.CreatePaths...), r.ListPaths...) {
			collOf[c] = r.Name
		}
	}
	for _, p := range doc.Paths.Keys() {
		for m := range doc.Paths.Value(p).Operations() {
			rank := 2
			coll, rest := splitResource(p, collOf)
			switch {
			case coll != "" && rest == "" && m == "POST":
				rank = 0
			case coll != "" && rest == "item" && m == "DELETE":
				rank = 4
			case coll != "" && rest != "":
				rank = 1
			}
			steps = append(steps, step{m, p, rank})
		}
	}
	sort.Slice(steps, func(i, j int) bool {
		a, b := steps[i], steps[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.specPath != b.specPath {
			return a.specPath < b.specPath
		}
		return a.method < b.method
	})
	var answered, valid, missed int
	provs := map[string]int{}
	var failures []string
	for _, s := range steps {
		coll, _ := splitResource(s.specPath, collOf)
		target := idsFor(s.specPath, collOf, ids)
		// Each request is one Stripe accepts: the operation's required
		// parameters, and metadata where it takes some (request
		// validation refuses anything else, as Stripe does).
		body := ""
		if op := reqs.Lookup(s.method, s.specPath); op != nil {
			switch params := minimalForm(op.Params); {
			case s.method != "POST":
				if params != "" {
					target += "?" + params
				}
			case op.Params.At("metadata") != nil:
				body = strings.TrimPrefix(params+"&metadata[conformance]=1", "&")
			default:
				body = params
			}
		}
		req, _ := http.NewRequest(s.method, srv.URL()+target, strings.NewReader(body))
		req.Header.Set("X-Wraith-Session", "conformance")
		if body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Header.Get("X-Wraith-Provenance") == "miss" && resp.StatusCode == http.StatusNotImplemented {
			missed++
			continue
		}
		answered++
		provs[resp.Header.Get("X-Wraith-Provenance")]++
		if s.rank == 0 && resp.StatusCode == 200 {
			var created struct{ ID string }
			if json.Unmarshal(raw, &created) == nil && created.ID != "" {
				ids[coll] = created.ID // the top-level id, not an expanded object's
			}
		}
		if err := validate(doc, s.method, s.specPath, req, resp, raw); err != nil {
			failures = append(failures, s.method+" "+s.specPath+" ("+resp.Header.Get("X-Wraith-Provenance")+" "+resp.Status+"): "+firstLine(err.Error()))
			continue
		}
		valid++
	}
	t.Logf("stripe conformance: %d operations, %d answered, %d valid, %d misses", len(steps), answered, valid, missed)
	for _, f := range failures {
		t.Errorf("does not validate: %s", f)
	}
	t.Logf("provenance of the answers: %v", provs)
	if provs["fixture"] < len(fixtureIDs(t, tw)) {
		t.Errorf("want each resource without create read at its fixture entity (%d), have %d fixture answers", len(fixtureIDs(t, tw)), provs["fixture"])
	}
	if answered < 500 {
		t.Errorf("want 500+ of Stripe's operations answered, have %d", answered)
	}
}

// fixtureIDs maps the collection of each resource that has no create to
// the id of its entity in the baseline fixture set.
func fixtureIDs(tb testing.TB, tw *format.Twin) map[string]string {
	tb.Helper()
	byType := map[string]string{}
	for _, set := range tw.Fixtures {
		if set.Name != "baseline" {
			continue
		}
		for _, raw := range set.Entities {
			var e struct{ ID, Object string }
			if err := json.Unmarshal(raw, &e); err != nil {
				tb.Fatal(err)
			}
			byType[e.Object] = e.ID
		}
	}
	ids := map[string]string{}
	for _, r := range tw.Manifest.Resources {
		if r.Omits("create") && byType[r.Name] != "" {
			ids[r.Collection] = byType[r.Name]
		}
	}
	if len(ids) == 0 {
		tb.Fatal("no baseline fixture entity of a resource without create: want read-only resources with fixtures")
	}
	return ids
}

// idsFor fills a description path's parameters: each parameter that
// follows a stateful collection (/v1/customers/{customer}/tax_ids/{id})
// is the id the session created or read there, so a nested entity is
// created and read under the parent created before it; "missing" when
// none was, "x_0123456789" for the other parameters.
func idsFor(specPath string, collOf map[string]string, ids map[string]string) string {
	segs := strings.Split(specPath, "/")
	out := make([]string, len(segs))
	for i, seg := range segs {
		out[i] = seg
		if !pathParam.MatchString(seg) {
			continue
		}
		out[i] = "x_0123456789"
		if prefix := strings.Join(segs[:i], "/"); collOf[prefix] != "" {
			out[i] = "missing"
			if id := ids[prefix]; id != "" {
				out[i] = id
			}
		}
	}
	return strings.Join(out, "/")
}

// splitResource says whether specPath belongs to a stateful resource's
// collection and whether it is the collection (""), the item ("item") or
// below the item ("sub"); the longest collection wins, so a nested
// collection's paths are its own, not its parent's.
func splitResource(specPath string, collOf map[string]string) (string, string) {
	colls := make([]string, 0, len(collOf))
	for coll := range collOf {
		colls = append(colls, coll)
	}
	sort.Slice(colls, func(i, j int) bool { return len(colls[i]) > len(colls[j]) })
	for _, coll := range colls {
		rest, ok := strings.CutPrefix(specPath, coll)
		if !ok {
			continue
		}
		switch {
		case rest == "":
			return coll, ""
		case strings.HasPrefix(rest, "/{") && !strings.Contains(rest[1:], "/"):
			return coll, "item"
		case strings.HasPrefix(rest, "/{"):
			return coll, "sub"
		}
	}
	return "", ""
}

func validate(doc *openapi3.T, method, specPath string, req *http.Request, resp *http.Response, body []byte) error {
	item := doc.Paths.Value(specPath)
	route := &routers.Route{Spec: doc, Path: specPath, PathItem: item, Method: method, Operation: item.GetOperation(method)}
	req.URL, _ = url.Parse(req.URL.String())
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// specPath is the description's path that path is an instance of, static
// segments preferred over parameters; "" for none.
func specPath(paths []string, path string) string {
	segs := strings.Split(path, "/")
	best, bestStatic := "", -1
	for _, p := range paths {
		ps := strings.Split(p, "/")
		if len(ps) != len(segs) {
			continue
		}
		static := 0
		for i, seg := range ps {
			if pathParam.MatchString(seg) {
				continue
			}
			if seg != segs[i] {
				static = -1
				break
			}
			static++
		}
		if static > bestStatic {
			best, bestStatic = p, static
		}
	}
	return best
}

// checkedAnswer is a flow test's request answered by the twin: the
// response (its body read, and put back for the client), the body, the
// twin's X-Wraith-Ignored-Params, and what is wrong with the answer
// against Stripe's description ("" when it conforms).
type checkedAnswer struct {
	resp    *http.Response
	body    []byte
	ignored string
	problem string
}

// sendChecked sends r, in session, to the twin, and checks its answer
// against the operation's in doc (whose paths are paths): the one round
// trip the Stripe flow tests' transports share, each keeping what it
// needs of the answer.
func sendChecked(doc *openapi3.T, paths []string, session string, r *http.Request) (*checkedAnswer, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Wraith-Session", session)
	var sent []byte
	if r.Body != nil {
		sent, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(sent))
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	a := &checkedAnswer{resp: resp, body: body, ignored: resp.Header.Get("X-Wraith-Ignored-Params")}
	spec := specPath(paths, r.URL.Path)
	if spec == "" {
		a.problem = "no path of Stripe's description matches"
		return a, nil
	}
	check := r.Clone(r.Context())
	check.Body = io.NopCloser(bytes.NewReader(sent))
	if err := validate(doc, r.Method, spec, check, resp, body); err != nil {
		a.problem = "(" + resp.Status + ") does not conform to Stripe's description: " + firstLine(err.Error())
	}
	return a, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

func mustSub(tb testing.TB, name string) fsys {
	tb.Helper()
	sub, err := subFS(embedded.FS(), name)
	if err != nil {
		tb.Fatal(err)
	}
	return sub
}
