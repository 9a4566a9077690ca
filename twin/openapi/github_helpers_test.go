package openapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-github/v84/github"
	"github.com/pelletier/go-toml/v2"

	"github.com/wraithdev/wraith/twin/server"
)

// githubSpec is GitHub's description from the pinned npm package ([source]
// of overlays/github.toml), which `make specs` installs into .specs/ at
// the module root.
var (
	ghOnce    sync.Once
	ghSpec    []byte
	ghOverlay []byte
	ghErr     error

	// The parse is shared by the tests that validate against it, which
	// may run in parallel.
	ghDocOnce sync.Once
	ghDoc     *openapi3.T
	ghDocErr  error
)

func loadGitHubSpec(tb testing.TB) ([]byte, []byte) {
	tb.Helper()
	ghOnce.Do(func() {
		if ghOverlay, ghErr = os.ReadFile("overlays/github.toml"); ghErr != nil {
			return
		}
		var ov struct {
			Source struct{ NPM, Spec string } `toml:"source"`
		}
		if ghErr = toml.Unmarshal(ghOverlay, &ov); ghErr != nil {
			return
		}
		pkg := ov.Source.NPM[:strings.LastIndex(ov.Source.NPM, "@")]
		ghSpec, ghErr = os.ReadFile(filepath.Join("..", "..", ".specs", "node_modules", filepath.FromSlash(pkg), filepath.FromSlash(ov.Source.Spec)))
	})
	if ghErr != nil {
		specMissing(tb, os.Getenv, fmt.Sprintf("GitHub's description is not installed (%v): run `make specs`, which installs it with npm", ghErr))
	}
	return ghSpec, ghOverlay
}

// githubDoc is api.github.com.json parsed for validation.
func githubDoc(tb testing.TB) *openapi3.T {
	tb.Helper()
	spec, _ := loadGitHubSpec(tb)
	ghDocOnce.Do(func() { ghDoc, ghDocErr = openapi3.NewLoader().LoadFromData(spec) })
	if ghDocErr != nil {
		tb.Fatalf("parse api.github.com.json: %v", ghDocErr)
	}
	return ghDoc
}

// githubClient is a go-github client of srv in session sess (sessionTransport
// is shared with the stripe-go tests).
func githubClient(tb testing.TB, srv *server.Server, sess string) *github.Client {
	tb.Helper()
	c := github.NewClient(&http.Client{Transport: sessionTransport{sess}})
	base, err := url.Parse(srv.URL() + "/")
	if err != nil {
		tb.Fatal(err)
	}
	c.BaseURL = base
	return c
}
