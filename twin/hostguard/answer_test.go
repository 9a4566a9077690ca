package hostguard

import (
	"net/http"
	"slices"
	"testing"
)

// TestMayRender: every type a browser could run as a document is
// sandboxed, unknown and missing ones included; the types an API sends as
// data are not.
func TestMayRender(t *testing.T) {
	for _, tc := range []struct {
		ctype []string
		want  bool
	}{
		{[]string{"text/html"}, true},
		{[]string{"text/html; charset=utf-8"}, true},
		{[]string{"TEXT/HTML;charset=UTF-8"}, true},
		{[]string{" text/html "}, true},
		{[]string{"application/xhtml+xml"}, true},
		{[]string{"image/svg+xml"}, true},
		{[]string{"image/SVG+XML; charset=utf-8"}, true},
		{[]string{"text/xml"}, true},
		{[]string{"application/xml"}, true},
		{[]string{"application/atom+xml"}, true},
		{[]string{"application/rss+xml"}, true},
		{[]string{"text/xsl"}, true},
		{[]string{"application/pdf"}, true},
		{[]string{"multipart/x-mixed-replace; boundary=x"}, true},
		{[]string{"application/vnd.unknown"}, true},
		{[]string{"text/vnd.wap.wml"}, true},
		{nil, true},
		{[]string{}, true},
		{[]string{""}, true},
		{[]string{"html"}, true},
		{[]string{"/html"}, true},
		{[]string{"application/json", "text/html"}, true},
		{[]string{"video/mp4, text/html"}, true},
		{[]string{"audio/mpeg,text/html"}, true},
		{[]string{"font/woff2, text/html"}, true},
		{[]string{"image/png;x=1, text/html"}, true},
		{[]string{"application/json; charset=utf-8, text/html"}, true},
		{[]string{"text/plain; charset=utf-8, text/html"}, true},
		{[]string{"application/json;,text/html"}, true},
		{[]string{`application/json; x="a,b"`}, true},
		{[]string{"application/json"}, false},
		{[]string{"application/json; charset=utf-8"}, false},
		{[]string{"Application/JSON"}, false},
		{[]string{"application/problem+json"}, false},
		{[]string{"application/vnd.github+json"}, false},
		{[]string{"text/plain"}, false},
		{[]string{"text/csv"}, false},
		{[]string{"application/octet-stream"}, false},
		{[]string{"image/png"}, false},
		{[]string{"video/mp4"}, false},
		{[]string{"text/event-stream"}, false},
	} {
		if have := MayRender(tc.ctype); have != tc.want {
			t.Errorf("MayRender(%q): want %v, have %v", tc.ctype, tc.want, have)
		}
	}
}

// TestGuardAnswer: nosniff on every answer, the sandbox beside a recorded
// policy, and the recorded headers, which every session shares, left as
// they were.
func TestGuardAnswer(t *testing.T) {
	own := make([]string, 1, 4) // room to append into: GuardAnswer must not
	own[0] = "default-src 'self'"
	for _, tc := range []struct {
		name     string
		recorded http.Header
		csp      []string
	}{
		{"wraith's own JSON", nil, nil},
		{"recorded JSON", http.Header{"Content-Type": {"application/json"}}, nil},
		{"recorded HTML", http.Header{"Content-Type": {"text/html"}}, []string{"sandbox"}},
		{"recorded HTML with a policy", http.Header{"Content-Type": {"text/html"}, "Content-Security-Policy": own}, []string{"default-src 'self'", "sandbox"}},
		{"recorded without a type", http.Header{"Etag": {`"x"`}}, []string{"sandbox"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.recorded {
				h[k] = v
			}
			GuardAnswer(h, tc.recorded)
			if want, have := "nosniff", h.Get("X-Content-Type-Options"); have != want {
				t.Errorf("X-Content-Type-Options: want %q, have %q", want, have)
			}
			if have := h["Content-Security-Policy"]; !slices.Equal(have, tc.csp) {
				t.Errorf("Content-Security-Policy: want %q, have %q", tc.csp, have)
			}
		})
	}
	if have := own[:2][1]; have != "" {
		t.Errorf("the recorded policy's array, shared by every session, was written to: want nothing after %q, have %q", own[0], have)
	}
}
