package control

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// HAR 1.2 (the W3C draft Chrome DevTools imports). Every field the format
// requires is always present; numbers nobody measured are -1. The document
// is {"log":{"version","creator","entries":[…]}}; writeHAR streams it.
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

// writeHAR writes the HAR of entries, a session's journal as the journal
// handler picked it, to w as it goes: one entry is rendered at a time, so
// the export holds no more than the journal does, however large. A write
// error (the client went away) ends it.
func (h *Handler) writeHAR(w http.ResponseWriter, name string, entries []session.Entry) {
	creator, _ := json.Marshal(harCreator{Name: "wraith", Version: h.opts.Version}) // two strings always encode
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprintf(w, `{"log":{"version":"1.2","creator":%s,"entries":[`, creator); err != nil {
		return
	}
	for i := range entries {
		e := &entries[i]
		resp := h.eng.ResponseHeader(name, e)
		if e.Delivery() != nil {
			resp = e.Recorded // a delivery's answer is the endpoint's, with its own headers
		}
		b, err := json.Marshal(harEntryOf(name, e, resp))
		if err != nil {
			// Unreachable: an entry is strings and numbers. The document
			// is already under way, so it is cut off, not answered anew.
			h.log.Error("HAR entry does not encode", "session", name, "index", e.Index, "error", err)
			return
		}
		if i > 0 {
			b = append([]byte{','}, b...)
		}
		if _, err := w.Write(b); err != nil {
			return
		}
	}
	io.WriteString(w, "]}}\n")
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
	u := "http://" + host + scrub.Mask(e.Path, redacted)
	if len(query) > 0 {
		u += "?" + encodePairs(query) // the redacted pairs: the raw query may carry a credential
	}
	if d := e.Delivery(); d != nil {
		u = scrub.Mask(d.URL, redacted) // a webhook endpoint's, scheme and all
	}
	respBody := e.RespBody()
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
			Content: harContent{Size: respBody.Size, MimeType: first(resp, "Content-Type"),
				Text: redactBody(first(resp, "Content-Type"), respBody.Bytes), Comment: truncatedComment(respBody)},
			RedirectURL: first(resp, "Location"),
			HeadersSize: -1, BodySize: respBody.Size,
		},
		Timings: harTimings{Send: -1, Wait: ms, Receive: -1},
		Wraith: harWraith{Session: name, Index: e.Index, Route: e.Route, Provenance: e.Provenance, Exchange: e.Exchange,
			RequestBody: truncatedOf(e.ReqBody), ResponseBody: truncatedOf(respBody)},
	}
	if out.Response.Content.MimeType == "" {
		out.Response.Content.MimeType = "application/json"
	}
	if e.ReqBody.Size > 0 {
		mime := e.ReqHeader.Get("Content-Type")
		post := &harPost{MimeType: mime, Params: []harPair{}, Comment: truncatedComment(e.ReqBody)}
		switch {
		case isForm(mime, e.ReqBody.Bytes):
			post.Params = harQuery(string(e.ReqBody.Bytes))
			post.Text = encodePairs(post.Params)
		case isJSONBody(mime, e.ReqBody.Bytes):
			post.Text = string(redactJSON(e.ReqBody.Bytes, true))
		default:
			// Cards and known credential shapes, as the recorder scrubs
			// a text body, also under escapes ("4242%204242…",
			// "sk_live&#95;…"); the journal keeps what the agent sent.
			post.Text = scrub.MaskDecoded(string(e.ReqBody.Bytes), redacted)
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
// sorted by name, credentials already redacted; card numbers and known
// credential shapes in the other values are masked as in bodies.
func harRequestHeaders(h session.Headers) []harPair {
	out := []harPair{}
	h.Each(func(k, v string) { out = append(out, harPair{Name: k, Value: scrub.Mask(v, redacted)}) })
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

// harQuery lists a query's (or form body's) pairs in the order sent, as
// the journal kept them: still percent-encoded, because decoding could
// turn an escaped credential ("sk_live_Ab%2FCd…", "%73k_…") into plain
// text the journal never held. A pair whose decoded name is a credential
// (scrub.IsCredential) has its value redacted; card numbers and known
// credential shapes in the other values are masked (maskValue).
func harQuery(raw string) []harPair {
	out := []harPair{}
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		name := k
		if uk, err := url.QueryUnescape(k); err == nil {
			name = uk
		}
		if scrub.IsCredential(name) {
			v = redacted
		} else {
			v = maskValue(v)
		}
		out = append(out, harPair{Name: k, Value: v})
	}
	return out
}

// maskValue is scrub.Mask for a percent-encoded query or form value,
// returned percent-encoded. A value whose escapes are not the ones
// url.QueryEscape writes is redacted whole when it needs masking:
// re-encoding it would decode whatever else it escaped.
func maskValue(v string) string {
	if !strings.Contains(v, "%") {
		// A "+" is a space: cards are grouped by spaces.
		return strings.ReplaceAll(scrub.Mask(strings.ReplaceAll(v, "+", " "), redacted), " ", "+")
	}
	dec, err := url.QueryUnescape(v)
	if err != nil {
		return scrub.Mask(v, redacted)
	}
	m := scrub.Mask(dec, redacted)
	if m == dec {
		return v
	}
	if url.QueryEscape(dec) == canonicalEscapes(v) {
		return url.QueryEscape(m)
	}
	return url.QueryEscape(redacted)
}

// canonicalEscapes writes v's escapes as url.QueryEscape does: upper-case
// hex, and a space as "+".
func canonicalEscapes(v string) string {
	b := []byte(v)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = upperHex(b[i+1]), upperHex(b[i+2])
		}
	}
	return strings.ReplaceAll(string(b), "%20", "+")
}

func upperHex(c byte) byte {
	if 'a' <= c && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

// encodePairs joins pairs, kept percent-encoded, into a query; a redacted
// value is written escaped.
func encodePairs(ps []harPair) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.Name)
		b.WriteByte('=')
		if p.Value == redacted {
			b.WriteString(url.QueryEscape(redacted))
		} else {
			b.WriteString(p.Value)
		}
	}
	return b.String()
}
