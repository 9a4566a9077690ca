package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
)

type Kind int

const (
	KindPlain Kind = iota
	KindList
	KindCreate
	KindRetrieve
	KindUpdate
	KindDelete
	KindAction
	KindMember
)

// endpoint is what a route resolves to.
type Endpoint struct {
	Kind     Kind
	Route    []string // X-Wraith-Route value, "GET /v1/customers/{id}"
	Resource *Resource
	Action   *Action
	Member   *Member
	Template *Recorded // the route's response shape, from its first 2xx recording
	NotFound *Recorded // a recorded 404 on this route, the provider's not-found shape
}

// recorded is a recorded answer, ready to write.
type Recorded struct {
	Status   int
	Header   http.Header
	Body     []byte
	Exchange []string // "<recording>/<index>"
}

// compileResources compiles the twin's resources and adds its route table
// (format's Twin.Routes, the one inspect shows) to the router.
func (e *Engine) compileResources() (map[string]*Resource, error) {
	table, err := e.twin.Routes()
	if err != nil {
		return nil, err
	}
	resources := map[string]*Resource{}
	for i := range e.twin.Manifest.Resources {
		spec := &e.twin.Manifest.Resources[i]
		r, err := compileResource(spec, e.errors, e.dialect.Defaults())
		if err != nil {
			return nil, fmt.Errorf("twin %s: resource %s: %w", e.twin.Name(), spec.Name, err)
		}
		resources[r.Name] = r
	}
	for _, rt := range table {
		ep := &Endpoint{Kind: KindPlain}
		switch {
		case rt.Resource != nil:
			r := resources[rt.Resource.Name]
			ep = r.endpointFor(rt.Op)
			ep.Resource = r
		case rt.Declared != nil:
			ep.Template = routeTemplate(*rt.Declared)
		}
		ep.Route = []string{rt.Method + " " + rt.Path}
		if err := e.router.Add(rt.Method, rt.Path, ep); err != nil {
			return nil, fmt.Errorf("twin %s: %s %s: %w", e.twin.Name(), rt.Method, rt.Path, err)
		}
	}
	linkMembers(resources)
	linkExpansions(resources)
	return resources, nil
}

// routeTemplate is a declared route's response shape, or nil: recordings
// then supply one.
func routeTemplate(rt format.Route) *Recorded {
	if rt.Body == "" {
		if rt.Status == http.StatusNoContent {
			return &Recorded{Status: rt.Status} // a 204 route (PUT /user/starred/...): no body to shape
		}
		return nil
	}
	status := rt.Status
	if status == 0 {
		status = http.StatusOK
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(rt.Body)); err != nil {
		return nil // the loader has rejected such a body already
	}
	return &Recorded{Status: status, Body: buf.Bytes()}
}

// hopHeaders are not replayed from recordings: the server sets its own.
var hopHeaders = []string{"Connection", "Content-Length", "Content-Encoding", "Keep-Alive", "Transfer-Encoding", "Trailer", "Upgrade", "Proxy-Connection"}

func (e *Engine) compileRecordings(resources map[string]*Resource) error {
	for _, ex := range e.twin.Exchanges {
		where := fmt.Sprintf("recordings/%s/%d.json", ex.Recording, ex.Index)
		// The route table has a route for every recorded request.
		m, _ := e.router.Match(ex.Request.Method, ex.Request.Path)
		ep := m.Value
		rec, err := compileAnswer(ex)
		if err != nil {
			return fmt.Errorf("twin %s: %s: %w", e.twin.Name(), where, err)
		}
		key, err := requestKey(ex.Request.Method, ex.Request.Query, ex.Request.Form, ex.Request.Body)
		if err != nil {
			return fmt.Errorf("twin %s: %s: %w", e.twin.Name(), where, err)
		}
		byKey := e.recorded[ex.Request.Path]
		if byKey == nil {
			byKey = map[string]*Recorded{}
			e.recorded[ex.Request.Path] = byKey
		}
		byKey[key] = rec // the last recording of the same request wins
		if rec.Status >= 200 && rec.Status < 300 && ep.Template == nil && json.Valid(rec.Body) {
			ep.Template = rec
		}
		if ep.Resource != nil && ep.Resource.Shape == nil && rec.Status >= 200 && rec.Status < 300 {
			if o, err := object.Parse(rec.Body); err == nil && o.String("object") == ep.Resource.Name && o.String("id") != "" {
				ep.Resource.Shape = o
			}
		}
		if rec.Status == http.StatusNotFound && ep.NotFound == nil {
			ep.NotFound = rec
		}
	}
	return nil
}

func compileAnswer(ex *format.Exchange) (*Recorded, error) {
	h := http.Header{}
	for k, v := range ex.Response.Headers {
		h[http.CanonicalHeaderKey(k)] = v
	}
	for _, k := range hopHeaders {
		delete(h, k)
	}
	var body []byte
	if len(ex.Response.Body) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, ex.Response.Body); err != nil {
			return nil, fmt.Errorf("response.body: %w", err)
		}
		body = buf.Bytes()
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", "application/json")
		}
	} else {
		body = []byte(ex.Response.BodyText)
	}
	setLength(h, len(body))
	return &Recorded{
		Status:   ex.Response.Status,
		Header:   h,
		Body:     body,
		Exchange: []string{ex.Recording + "/" + strconv.Itoa(ex.Index)},
	}, nil
}

// requestKey identifies a request for recorded matching: method, canonical
// query and canonical body. The path is the outer map's key.
func requestKey(method, query, form string, jsonBody []byte) (string, error) {
	q, err := canon.Query(query)
	if err != nil {
		return "", fmt.Errorf("query: %w", err)
	}
	var body string
	switch {
	case form != "":
		if body, err = canon.Form([]byte(form)); err != nil {
			return "", fmt.Errorf("form: %w", err)
		}
	case len(jsonBody) > 0:
		b, err := canon.JSON(jsonBody)
		if err != nil {
			return "", fmt.Errorf("body: %w", err)
		}
		body = string(b)
	}
	return joinKey(method, q, body), nil
}

func joinKey(method, query, body string) string {
	if query == "" && body == "" {
		return method
	}
	return method + "?" + query + "#" + body
}

// QualifyFixture turns a fixture name as a user gives it (SET or TWIN:SET)
// into its qualified form, or returns a *FixtureError.
func (e *Engine) QualifyFixture(name string) (string, error) {
	if strings.Contains(name, ":") {
		if _, ok := e.worlds[name]; ok {
			return name, nil
		}
	} else {
		for _, tw := range e.fixtureTwins() {
			if _, ok := e.worlds[tw+":"+name]; ok {
				return tw + ":" + name, nil
			}
		}
	}
	return "", &FixtureError{Name: name, Available: e.fixtures}
}

func (e *Engine) fixtureTwins() []string {
	return append([]string{e.twin.Name()}, e.twin.Manifest.Fixtures.Imports...)
}

// FixtureError says a fixture set does not exist.
type FixtureError struct {
	Name      string
	Available []string
}

func (f *FixtureError) Error() string {
	return fmt.Sprintf("fixture set %q not found; available: %s", f.Name, strings.Join(f.Available, ", "))
}

// Fixtures returns the qualified names of every fixture set, sorted.
func (e *Engine) Fixtures() []string { return e.fixtures }
