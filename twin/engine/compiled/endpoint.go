package compiled

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/reqschema"
)

// Kind is what an endpoint does: which handler answers it.
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

// Endpoint is what a route resolves to.
type Endpoint struct {
	Kind     Kind
	Route    []string // X-Wraith-Route value, "GET /v1/customers/{id}"
	Resource *Resource
	Action   *Action
	Member   *Member
	Template *Recorded // the route's response shape, from its first 2xx recording
	NotFound *Recorded // a recorded 404 on this route, the provider's not-found shape
	Honest   *Honest   // a declared route's answer under the not_found policy (honest.go)
	// Search says a list endpoint searches (a resource's search_paths).
	Search bool
	// Event is the event type the resource declares for this write
	// ([resources.events]), "" for none: what the dialect's Handler is
	// told of with each 2xx answer (dialect.Call.Event).
	Event string
	// Params is what the provider accepts in this route's requests (its
	// query, or its body), from the twin's requests.json; nil: unchecked.
	Params *reqschema.Schema
	// Repeated are Params' top-level names that are Repeated arrays,
	// sorted: lists a request sends as the name repeated, which the
	// engine reads whole (dialect.Decoder's Repeated) where the tree keeps
	// the last value. nil for most routes, which then pay nothing.
	Repeated []string
}

// Recorded is a recorded answer, ready to write: its headers built and
// its body compacted.
type Recorded struct {
	Status   int
	Header   http.Header
	Body     []byte
	Exchange []string // "<recording>/<index>"
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
	if rt.ContentType != "" {
		h := http.Header{"Content-Type": {rt.ContentType}}
		SetLength(h, len(rt.Body))
		return &Recorded{Status: status, Header: h, Body: []byte(rt.Body)}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(rt.Body)); err != nil {
		return nil // the loader has rejected such a body already
	}
	return &Recorded{Status: status, Body: buf.Bytes()}
}
