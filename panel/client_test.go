//go:build panel

package panel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/wraithdev/wraith/twin/openapi"
)

// client sends requests to a served twin as an SDK of the description
// would, and validates every answer against the description.
type client struct {
	t     *testing.T
	base  string
	doc   *openapi3.T
	row   *row
	index map[string][]openapi.Operation // "METHOD shape" of the served path -> its operations
	http  http.Client
	// noBase sends paths without the servers' base path, as Prism
	// serves them.
	noBase bool
	// peer is a server run beside the twin (Prism): one that stops
	// answering ends its own run, reported in its row, and does not fail
	// the panel, which judges the twin.
	peer bool
	// refusing counts answers in the row's refusals, not its answers:
	// set while a bad request is sent.
	refusing bool
}

// shape is a path template with its parameters' names blanked, so a twin
// path and the description's path compare alike.
func shape(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if o := strings.IndexByte(s, '{'); o >= 0 {
			if c := strings.IndexByte(s, '}'); c > o {
				segs[i] = s[:o] + "{}" + s[c+1:]
			}
		}
	}
	return strings.Join(segs, "/")
}

// indexOps are the description's operations by the request that reaches
// them, in the description's order: more than one where the description
// writes one request as several paths that differ by a fragment (Box's
// GET /shared_items, /shared_items#folders and #web_links: the item a
// shared link names is a file, a folder or a web link).
func indexOps(doc *openapi3.T) map[string][]openapi.Operation {
	out := map[string][]openapi.Operation{}
	for _, o := range openapi.OperationsOf(doc) {
		k := o.Method + " " + shape(openapi.ServedPath(doc, o))
		out[k] = append(out[k], o)
	}
	return out
}

// answer is one response read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
	json   any
}

func (a *answer) String() string {
	b := a.body
	if len(b) > 200 {
		b = b[:200]
	}
	return fmt.Sprintf("%d %s", a.status, bytes.TrimSpace(b))
}

// send sends method path with body as op's request content asks, in a
// session, and validates the answer against op when op is known.
func (c *client) send(session, method, path string, op *openapi.Operation, body map[string]any) *answer {
	var rd io.Reader
	ctype := ""
	if body != nil {
		ctype = requestType(op)
		switch ctype {
		case "application/x-www-form-urlencoded":
			rd = strings.NewReader(form(body).Encode())
		case "multipart/form-data":
			var buf bytes.Buffer
			w := multipart.NewWriter(&buf)
			for _, k := range sortedKeys(body) {
				w.WriteField(k, scalar(body[k]))
			}
			w.Close()
			rd, ctype = &buf, w.FormDataContentType()
		default:
			b, _ := json.Marshal(body)
			rd, ctype = bytes.NewReader(b), "application/json"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c.noBase && op != nil {
		path = strings.TrimPrefix(path, openapi.BasePath(c.doc, op.Path, op.Op))
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("X-Wraith-Session", session)
	for k, v := range c.credentials() {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept", "application/json")
	// A redirect is an answer like any other, and is never followed:
	// Prism redirects to the description's URLs, which are off this
	// machine.
	c.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.http.Do(req)
	if err != nil {
		if c.peer {
			c.row.failures = append(c.row.failures, fmt.Sprintf("stopped: %s %s: %v", method, path, err))
			c.t.Skipf("the peer stopped answering, which ends its run here: %s %s: %v", method, path, err)
		}
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	a := &answer{status: resp.StatusCode, header: resp.Header}
	a.body, _ = io.ReadAll(resp.Body)
	json.Unmarshal(a.body, &a.json)
	if c.refusing { // sendBad counts its own
		if resp.Header.Get("X-Wraith-Provenance") == "miss" {
			return a
		}
	} else {
		c.row.sent++
		if resp.Header.Get("X-Wraith-Provenance") == "miss" {
			c.row.misses++
			return a
		}
	}
	if op == nil {
		return a
	}
	t := &c.row.tally
	if c.refusing {
		t = &c.row.refusals
	}
	t.answered++
	if err := c.validateAlike(op, req, resp, a.body); err != nil {
		// A status the description does not list for the operation (a
		// 404 for a read after delete, where the description lists only
		// 200) is counted apart from a body that breaks its schema.
		if strings.Contains(err.Error(), "status is not supported") {
			t.undeclared++
			if !listsClass(op, resp.StatusCode) || unlistedNotFound(op, resp.StatusCode) || unlistedRefusal(op, resp.StatusCode) {
				t.gaps++
			}
		}
		c.row.failures = append(c.row.failures, fmt.Sprintf("invalid answer to %s %s (%s): %s", method, path, a, firstLine(err.Error())))
		return a
	}
	t.valid++
	return a
}

// unlistedNotFound reports whether status is a 404 where op lists no
// 404 and no other status it says is an entity not found (Jira's filter
// read says its 400 is): an entity that is not there has no answer that
// both tells the truth and validates (Directus's comment read lists only
// 200 and 401, and the request's credentials are good).
func unlistedNotFound(op *openapi.Operation, status int) bool {
	if status != http.StatusNotFound || op.Op.Responses == nil {
		return false
	}
	for code, r := range op.Op.Responses.Map() {
		if code == "404" || code == "4XX" || code == "default" {
			return false
		}
		if r != nil && r.Value != nil && r.Value.Description != nil && len(code) == 3 && code[0] == '4' {
			d := strings.ToLower(*r.Value.Description)
			if strings.Contains(d, "not found") || strings.Contains(d, "not exist") {
				return false
			}
		}
	}
	return true
}

// unlistedRefusal reports whether status is a 400 or 422, a request
// refused as the description's schema refuses it, where op lists neither
// (nor 4XX or a default): Directus's login lists only 200 and 401, and
// an answer that says the request is fine or unauthenticated would not
// be true.
func unlistedRefusal(op *openapi.Operation, status int) bool {
	if (status != http.StatusBadRequest && status != http.StatusUnprocessableEntity) || op.Op.Responses == nil {
		return false
	}
	for _, code := range []string{"400", "422", "4XX", "default"} {
		if op.Op.Responses.Value(code) != nil {
			return false
		}
	}
	return true
}

// listsClass reports whether op lists a status of status's class (2xx,
// 4xx...) or a default: where it lists none, no answer of that class
// validates, whatever its status (the petstore's create lists only 405;
// a read after delete is a 404 where Twilio lists only 200).
func listsClass(op *openapi.Operation, status int) bool {
	if op.Op.Responses == nil {
		return false
	}
	for code := range op.Op.Responses.Map() {
		if code == "default" || (len(code) == 3 && int(code[0]-'0') == status/100) {
			return true
		}
	}
	return false
}

// opFor is the description's (first) operation served at method path.
func (c *client) opFor(method, twinPath string) *openapi.Operation {
	if ops := c.index[method+" "+shape(twinPath)]; len(ops) > 0 {
		return &ops[0]
	}
	return nil
}

// validateAlike validates an answer to o, and where o's schema refuses it,
// against each other operation the same request reaches (indexOps): the
// description says that request may answer any of theirs, and no request
// can tell the twin which one it means. The error is o's.
func (c *client) validateAlike(o *openapi.Operation, req *http.Request, resp *http.Response, body []byte) error {
	err := validate(c.doc, o, req, resp, body)
	if err == nil {
		return nil
	}
	for _, other := range c.index[o.Method+" "+shape(openapi.ServedPath(c.doc, *o))] {
		if other.Path != o.Path && validate(c.doc, &other, req, resp, body) == nil {
			return nil
		}
	}
	return err
}

func validate(doc *openapi3.T, o *openapi.Operation, req *http.Request, resp *http.Response, body []byte) error {
	item := doc.Paths.Value(o.Path)
	route := &routers.Route{Spec: doc, Path: o.Path, PathItem: item, Method: o.Method, Operation: o.Op}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: false},
	}
	if resp.StatusCode == http.StatusNoContent {
		// A 204 has no content (RFC 9110 §15.3.5), whatever schema a
		// description gives it (Jira lists application/json for its 204s).
		in.Options.ExcludeResponseBody = true
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// requestType is the media type an operation's request body takes: JSON
// when it offers it, else a form, else multipart.
func requestType(op *openapi.Operation) string {
	if op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Value == nil {
		return "application/json"
	}
	content := op.Op.RequestBody.Value.Content
	for _, mt := range []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data"} {
		if content.Get(mt) != nil {
			return mt
		}
	}
	return "application/json"
}

// form is a body as a form: an array as the name repeated, once per
// element, as form-encoding SDKs send a list (Twilio's Permission).
func form(body map[string]any) url.Values {
	v := url.Values{}
	for k, x := range body {
		if arr, ok := x.([]any); ok {
			for _, e := range arr {
				v.Add(k, scalar(e))
			}
			continue
		}
		v.Set(k, scalar(x))
	}
	return v
}

func scalar(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 240 {
		s = s[:240]
	}
	return s
}

// credentials are headers that satisfy the description's security
// schemes, as an SDK configured with a key sends them: Prism refuses a
// request without them (401); a twin reads them only for a session
// suffix, which these lack.
func (c *client) credentials() map[string]string {
	out := map[string]string{}
	if c.doc.Components == nil {
		return out
	}
	for _, name := range sortedSchemes(c.doc.Components.SecuritySchemes) {
		s := c.doc.Components.SecuritySchemes[name].Value
		if s == nil {
			continue
		}
		switch {
		case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
			if _, ok := out["Authorization"]; !ok {
				out["Authorization"] = "Basic cGFuZWw6cGFuZWw=" // panel:panel
			}
		case s.Type == "http" || s.Type == "oauth2" || s.Type == "openIdConnect":
			if _, ok := out["Authorization"]; !ok {
				out["Authorization"] = "Bearer panel"
			}
		case s.Type == "apiKey" && s.In == "header":
			out[s.Name] = "panel"
		}
	}
	return out
}

func sortedSchemes(m openapi3.SecuritySchemes) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
