package control

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// HAR 1.2 (the W3C draft Chrome DevTools imports). Every field the format
// requires is always present; numbers nobody measured are -1.
type harDoc struct {
	Log harLog `json:"log"`
}

type harLog struct {
	Version string     `json:"version"`
	Creator harCreator `json:"creator"`
	Entries []harEntry `json:"entries"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harEntry struct {
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         harTimings  `json:"timings"`
	Wraith          harWraith   `json:"_wraith"`
}

type harPair struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harRequest struct {
	Method      string    `json:"method"`
	URL         string    `json:"url"`
	HTTPVersion string    `json:"httpVersion"`
	Cookies     []harPair `json:"cookies"`
	Headers     []harPair `json:"headers"`
	QueryString []harPair `json:"queryString"`
	PostData    *harPost  `json:"postData,omitempty"`
	HeadersSize int       `json:"headersSize"`
	BodySize    int       `json:"bodySize"`
}

type harPost struct {
	MimeType string    `json:"mimeType"`
	Params   []harPair `json:"params"`
	Text     string    `json:"text"`
	Comment  string    `json:"comment,omitempty"`
}

type harResponse struct {
	Status      int        `json:"status"`
	StatusText  string     `json:"statusText"`
	HTTPVersion string     `json:"httpVersion"`
	Cookies     []harPair  `json:"cookies"`
	Headers     []harPair  `json:"headers"`
	Content     harContent `json:"content"`
	RedirectURL string     `json:"redirectURL"`
	HeadersSize int        `json:"headersSize"`
	BodySize    int        `json:"bodySize"`
}

type harContent struct {
	Size     int    `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

type harTimings struct {
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

type harWraith struct {
	Session    string `json:"session"`
	Index      int64  `json:"index"`
	Route      string `json:"route"`
	Provenance string `json:"provenance"`
	Exchange   string `json:"exchange,omitempty"`
	// RequestBody and ResponseBody describe a body the journal kept only
	// the start of (see session.KeepBody).
	RequestBody  *harTruncated `json:"request_body,omitempty"`
	ResponseBody *harTruncated `json:"response_body,omitempty"`
}

// harTruncated is a body the HAR shows only the start of.
type harTruncated struct {
	Size   int    `json:"size"`
	Kept   int    `json:"kept"`
	SHA256 string `json:"sha256"`
}

func truncatedOf(b session.Body) *harTruncated {
	if !b.Truncated() {
		return nil
	}
	return &harTruncated{Size: b.Size, Kept: len(b.Bytes), SHA256: b.SHA256()}
}

// truncatedComment says, in the HAR's own comment field, that a body is
// only its start.
func truncatedComment(b session.Body) string {
	if !b.Truncated() {
		return ""
	}
	return fmt.Sprintf("truncated: the journal keeps the first %d of %d bytes (sha256 %s)", len(b.Bytes), b.Size, b.SHA256())
}

// redacted replaces a credential in the HAR: the journal keeps what the
// agent sent, the export never shows it.
const redacted = session.Redacted

func (h *Handler) har(name string, entries []session.Entry) harDoc {
	doc := harDoc{Log: harLog{Version: "1.2", Creator: harCreator{Name: "wraith", Version: h.opts.Version}, Entries: make([]harEntry, 0, len(entries))}}
	for i := range entries {
		e := &entries[i]
		doc.Log.Entries = append(doc.Log.Entries, harEntryOf(name, e, h.eng.ResponseHeader(name, e)))
	}
	return doc
}

// harEntryOf renders e; resp is the answer's headers, which the engine
// rebuilds from the entry.
func harEntryOf(name string, e *session.Entry, resp http.Header) harEntry {
	ms := float64(e.Latency.Microseconds()) / 1000
	host := e.Host
	if host == "" {
		host = "localhost"
	}
	query := harQuery(e.Query)
	u := "http://" + host + e.Path
	if len(query) > 0 {
		u += "?" + encodePairs(query) // the redacted pairs: the raw query may carry a credential
	}
	out := harEntry{
		StartedDateTime: time.Unix(e.At, 0).UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Time:            ms,
		Request: harRequest{
			Method: e.Method, URL: u, HTTPVersion: "HTTP/1.1",
			Cookies: []harPair{}, Headers: harRequestHeaders(e.ReqHeader), QueryString: query,
			HeadersSize: -1, BodySize: e.ReqBody.Size,
		},
		Response: harResponse{
			Status: e.Status, StatusText: http.StatusText(e.Status), HTTPVersion: "HTTP/1.1",
			Cookies: []harPair{}, Headers: harHeaders(resp),
			Content: harContent{Size: e.RespBody.Size, MimeType: first(resp, "Content-Type"),
				Text: redactBody(first(resp, "Content-Type"), e.RespBody.Bytes), Comment: truncatedComment(e.RespBody)},
			RedirectURL: first(resp, "Location"),
			HeadersSize: -1, BodySize: e.RespBody.Size,
		},
		Timings: harTimings{Send: -1, Wait: ms, Receive: -1},
		Wraith: harWraith{Session: name, Index: e.Index, Route: e.Route, Provenance: e.Provenance, Exchange: e.Exchange,
			RequestBody: truncatedOf(e.ReqBody), ResponseBody: truncatedOf(e.RespBody)},
	}
	if out.Response.Content.MimeType == "" {
		out.Response.Content.MimeType = "application/json"
	}
	if e.ReqBody.Size > 0 {
		mime := e.ReqHeader.Get("Content-Type")
		post := &harPost{MimeType: mime, Params: []harPair{}, Comment: truncatedComment(e.ReqBody)}
		if isForm(mime, e.ReqBody.Bytes) {
			post.Params = harQuery(string(e.ReqBody.Bytes))
			post.Text = encodePairs(post.Params)
		} else {
			post.Text = redactBody(mime, e.ReqBody.Bytes)
		}
		out.Request.PostData = post
	}
	return out
}

func first(h http.Header, k string) string {
	if v := h[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// harHeaders lists headers sorted by name, with credentials redacted as
// the journal redacts a request's.
func harHeaders(h http.Header) []harPair {
	out := []harPair{}
	for _, k := range sortedHeaderNames(h) {
		for _, v := range h[k] {
			out = append(out, harPair{Name: k, Value: session.RedactHeader(k, v)})
		}
	}
	return out
}

// harRequestHeaders lists a request's headers as the journal kept them:
// sorted by name, credentials already redacted.
func harRequestHeaders(h session.Headers) []harPair {
	out := []harPair{}
	h.Each(func(k, v string) { out = append(out, harPair{Name: k, Value: v}) })
	return out
}

func sortedHeaderNames(h http.Header) []string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// harQuery lists a query's (or form body's) pairs in the order sent, with
// credential-named values redacted.
func harQuery(raw string) []harPair {
	out := []harPair{}
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		if scrub.IsCredential(k) {
			v = redacted
		}
		out = append(out, harPair{Name: k, Value: v})
	}
	return out
}

func encodePairs(ps []harPair) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p.Name) + "=" + url.QueryEscape(p.Value))
	}
	return b.String()
}
