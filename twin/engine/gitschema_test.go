package engine

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// githubSpecPath is GitHub's description as `make specs` installs it (the
// package [source] of the github overlay names).
const githubSpecPath = "../../.specs/node_modules/@octokit/openapi/generated/api.github.com.json"

// githubDescription parses GitHub's description, or skips the test when
// it is not installed (fails under CI=true). It is parsed once per test
// binary: its 13 MB take ten seconds to parse under -race, and the tests
// only read it.
func githubDescription(tb testing.TB) *openapi3.T {
	tb.Helper()
	parsed.once.Do(func() {
		spec, err := os.ReadFile(filepath.FromSlash(githubSpecPath))
		if err != nil {
			parsed.missing = err
			return
		}
		parsed.doc, parsed.err = openapi3.NewLoader().LoadFromData(spec)
	})
	if err := parsed.missing; err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true: GitHub's description: %v (make specs installs it)", err)
		}
		tb.Skipf("GitHub's description is not installed (%v): run `make specs`", err)
	}
	if parsed.err != nil {
		tb.Fatalf("parse GitHub's description: %v", parsed.err)
	}
	return parsed.doc
}

// parsed is GitHub's description as githubDescription parsed it.
var parsed struct {
	once         sync.Once
	doc          *openapi3.T
	missing, err error
}

// conforming is a RoundTripper that checks every answer of the twin
// against GitHub's description of the operation the twin says it
// served (X-Wraith-Route), and records each problem.
type conforming struct {
	next http.RoundTripper
	doc  *openapi3.T
	mu   sync.Mutex
	bad  []string
	seen int
}

func (c *conforming) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	method, tmpl, _ := strings.Cut(resp.Header.Get("X-Wraith-Route"), " ")
	specPath := strings.ReplaceAll(tmpl, "...}", "}")
	if specPath == "/repos/{owner}/{repo}/compare/{base_head}" {
		specPath = "/repos/{owner}/{repo}/compare/{basehead}"
	}
	item := c.doc.Paths.Value(specPath)
	c.mu.Lock()
	defer c.mu.Unlock()
	if item == nil || item.GetOperation(method) == nil {
		c.bad = append(c.bad, r.Method+" "+r.URL.Path+": no operation "+method+" "+specPath+" in GitHub's description")
		return resp, nil
	}
	c.seen++
	req := r.Clone(context.Background())
	req.URL, _ = url.Parse(r.URL.String())
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req,
			Route:   &routers.Route{Spec: c.doc, Path: specPath, PathItem: item, Method: method, Operation: item.GetOperation(method)},
		},
		Status:  resp.StatusCode,
		Header:  resp.Header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	err = openapi3filter.ValidateResponse(context.Background(), in)
	if err != nil && resp.StatusCode >= 400 && strings.Contains(err.Error(), "input matches more than one oneOf schemas") {
		// GitHub describes some errors as oneOf two schemas that require
		// nothing (basic-error, repository-rule-violation-error), which every
		// body matches both of: no answer, GitHub's included, passes.
		err = nil
	}
	if err != nil {
		msg := err.Error()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		c.bad = append(c.bad, r.Method+" "+r.URL.Path+" "+resp.Status+": "+msg)
	}
	return resp, nil
}
