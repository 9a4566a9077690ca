package ui

import (
	"io/fs"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestServesFiles(t *testing.T) {
	h := New(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	tests := []struct {
		method, path string
		want         int
		ctype        string
		body         string // a substring of the body
	}{
		{"GET", "/__wraith/ui", 200, "text/html; charset=utf-8", `<script src="ui/app.js" defer></script>`},
		{"HEAD", "/__wraith/ui", 200, "text/html; charset=utf-8", ""},
		{"GET", "/__wraith/ui/app.js", 200, "text/javascript; charset=utf-8", "'use strict';"},
		{"GET", "/__wraith/ui/app.css", 200, "text/css; charset=utf-8", "--recorded"},
		{"GET", "/__wraith/ui/icon.svg", 200, "image/svg+xml", "<svg"},
		{"GET", "/__wraith/ui/index.html", 404, "application/json", `"code":"ui-not-found"`},
		{"GET", "/__wraith/ui/static/app.js", 404, "application/json", `"code":"ui-not-found"`},
		{"POST", "/__wraith/ui", 405, "application/json", `"code":"method-not-allowed"`},
		{"DELETE", "/__wraith/ui/app.js", 405, "application/json", `"code":"method-not-allowed"`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(tt.method, "http://127.0.0.1:1234"+tt.path, nil))
			if w.Code != tt.want {
				t.Fatalf("status: want %d, have %d %s", tt.want, w.Code, w.Body)
			}
			if have := w.Header().Get("Content-Type"); have != tt.ctype {
				t.Errorf("Content-Type: want %q, have %q", tt.ctype, have)
			}
			for k, want := range map[string]string{
				"Content-Security-Policy": CSP,
				"X-Content-Type-Options":  "nosniff",
				"X-Frame-Options":         "DENY",
			} {
				if have := w.Header().Get(k); have != want {
					t.Errorf("%s: want %q, have %q", k, want, have)
				}
			}
			if !strings.Contains(w.Body.String(), tt.body) {
				t.Errorf("body: want it to contain %q, have\n%s", tt.body, w.Body)
			}
			if tt.method == "HEAD" && w.Body.Len() != 0 {
				t.Errorf("HEAD: want no body, have %d bytes", w.Body.Len())
			}
		})
	}
}

// TestCSPIsStrict pins the policy's parts that keep the page safe.
func TestCSPIsStrict(t *testing.T) {
	for _, want := range []string{"default-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'", "object-src 'none'"} {
		if !strings.Contains(CSP, want) {
			t.Errorf("CSP %q lacks %q", CSP, want)
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "http:", "https:", "*", "data:"} {
		if strings.Contains(CSP, bad) {
			t.Errorf("CSP %q allows %q", CSP, bad)
		}
	}
}

// TestNoInlineCode checks that the page works under its policy: no inline
// scripts, inline styles or event-handler attributes, which the policy
// would block, and no URL outside the page's own origin.
func TestNoInlineCode(t *testing.T) {
	inlineScript := regexp.MustCompile(`<script(\s[^>]*)?>\s*[^<\s]`)
	scriptTag := regexp.MustCompile(`(?i)<script[^>]*>`)
	handlerAttr := regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	styleAttr := regexp.MustCompile(`(?i)\sstyle\s*=`)
	styleTag := regexp.MustCompile(`(?i)<style[\s>]`)
	absURL := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	jsStyle := regexp.MustCompile(`\.style\b|setAttribute\(\s*['"](style|on)|innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function|localStorage|sessionStorage|document\.cookie`)
	err := fs.WalkDir(static, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(static, path)
		if err != nil {
			return err
		}
		src := string(b)
		if strings.HasSuffix(path, ".html") {
			for _, c := range []struct {
				name string
				re   *regexp.Regexp
			}{{"inline script", inlineScript}, {"event-handler attribute", handlerAttr}, {"style attribute", styleAttr}, {"style element", styleTag}} {
				if m := c.re.FindString(src); m != "" {
					t.Errorf("%s has an %s, which the CSP blocks: %q", path, c.name, m)
				}
			}
		}
		for _, tag := range scriptTag.FindAllString(src, -1) {
			if !strings.Contains(tag, " src=") {
				t.Errorf("%s has a script without src, which the CSP blocks: %q", path, tag)
			}
		}
		if strings.HasSuffix(path, ".js") {
			if m := jsStyle.FindString(src); m != "" {
				t.Errorf("%s uses %q: set classes and textContent, keep the token in memory", path, m)
			}
		}
		if m := absURL.FindString(src); m != "" && !strings.Contains(m, "w3.org") {
			t.Errorf("%s names an outside URL %q: the page fetches nothing from outside", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPaths(t *testing.T) {
	tests := []struct {
		path          string
		public, owned bool
	}{
		{"/__wraith/ui", true, true},
		{"/__wraith/ui/app.js", true, true},
		{"/__wraith/ui/app.css", true, true},
		{"/__wraith/ui/nope.js", false, true},
		{"/__wraith/uix", false, false},
		{"/__wraith/session", false, false},
		{"/ui", false, false},
	}
	for _, tt := range tests {
		if have := Public(tt.path); have != tt.public {
			t.Errorf("Public(%q): want %v, have %v", tt.path, tt.public, have)
		}
		if have := Owns(tt.path); have != tt.owned {
			t.Errorf("Owns(%q): want %v, have %v", tt.path, tt.owned, have)
		}
	}
}
