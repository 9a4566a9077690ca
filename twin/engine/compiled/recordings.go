package compiled

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
)

// hopHeaders are not replayed from recordings: the server sets its own.
var hopHeaders = []string{"Connection", "Content-Length", "Content-Encoding", "Keep-Alive", "Transfer-Encoding", "Trailer", "Upgrade", "Proxy-Connection"}

func (c *compiler) compileRecordings(resources map[string]*Resource) error {
	for _, ex := range c.src.Exchanges {
		where := fmt.Sprintf("recordings/%s/%d.json", ex.Recording, ex.Index)
		// The route table has a route for every recorded request.
		m, _ := c.out.Router.Match(ex.Request.Method, ex.Request.Path)
		ep := m.Value
		rec, err := compileAnswer(ex)
		if err != nil {
			return fmt.Errorf("twin %s: %s: %w", c.src.Name(), where, err)
		}
		key, err := requestKey(ex.Request.Method, ex.Request.Query, ex.Request.Form, ex.Request.Body)
		if err != nil {
			return fmt.Errorf("twin %s: %s: %w", c.src.Name(), where, err)
		}
		byKey := c.out.recorded[ex.Request.Path]
		if byKey == nil {
			byKey = map[string]*Recorded{}
			c.out.recorded[ex.Request.Path] = byKey
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
	SetLength(h, len(body))
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

// countedBody is the size below which net/http counts a body itself: a
// handler's first 2 KiB stay in its buffer, and when the handler returns
// with the whole body still there, net/http sends the Content-Length from
// it without a header map entry or an allocation.
const countedBody = 2048

// SetLength sets Content-Length for a body net/http would otherwise send
// chunked.
func SetLength(h http.Header, n int) {
	if n >= countedBody {
		h["Content-Length"] = []string{strconv.Itoa(n)}
	}
}

// Recorded returns the answer recorded for exactly this request: its
// method, path, canonical query and canonical body; nil for none.
func (t *Twin) Recorded(method, path, query, contentType string, body []byte) *Recorded {
	byKey := t.recorded[path]
	if byKey == nil {
		return nil
	}
	if query == "" && len(body) == 0 {
		return byKey[method]
	}
	q, err := canon.Query(query)
	if err != nil {
		return nil
	}
	b, err := canon.Body(contentType, body)
	if err != nil {
		return nil
	}
	return byKey[joinKey(method, q, b)]
}
