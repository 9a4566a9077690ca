package openapi_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/openapi"
	"github.com/wraithdev/wraith/twin/server"
)

// stripeSpec is Stripe's description and fixtures from the pinned
// stripe-mock module ([source] of overlays/stripe.toml), downloaded once
// per test binary through the module proxy.
type stripeSpec struct {
	spec, fixtures, overlay []byte
	err                     error
}

var (
	stripeOnce sync.Once
	stripeSrc  stripeSpec
)

func loadStripeSpec(tb testing.TB) *stripeSpec {
	tb.Helper()
	stripeOnce.Do(func() {
		s := &stripeSrc
		if s.overlay, s.err = os.ReadFile("overlays/stripe.toml"); s.err != nil {
			return
		}
		ov, err := openapi.ParseOverlay(s.overlay)
		if err != nil {
			s.err = err
			return
		}
		out, err := exec.Command("go", "mod", "download", "-json", ov.Source.Module).Output()
		if err != nil {
			s.err = err
			return
		}
		var mod struct{ Dir, Error string }
		if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
			s.err = err
			return
		}
		if s.spec, s.err = os.ReadFile(filepath.Join(mod.Dir, ov.Source.Spec)); s.err != nil {
			return
		}
		s.fixtures, s.err = os.ReadFile(filepath.Join(mod.Dir, ov.Source.Fixtures))
	})
	if stripeSrc.err != nil {
		specMissing(tb, os.Getenv, fmt.Sprintf("Stripe's description is not available (go mod download of the pinned stripe-mock failed: %v): run `make specs` with network access", stripeSrc.err))
	}
	return &stripeSrc
}

var (
	docOnce sync.Once
	doc     *openapi3.T
	docErr  error
)

// stripeDoc is spec3.json parsed for validation.
func stripeDoc(tb testing.TB) *openapi3.T {
	tb.Helper()
	s := loadStripeSpec(tb)
	docOnce.Do(func() {
		doc, docErr = openapi3.NewLoader().LoadFromData(s.spec)
	})
	if docErr != nil {
		tb.Fatalf("parse spec3.json: %v", docErr)
	}
	return doc
}

// startTwin serves a twin on 127.0.0.1:0 until the test ends.
func startTwin(tb testing.TB, twin string, args ...string) *server.Server {
	tb.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := server.Flags(fs)
	if err := fs.Parse(args); err != nil {
		tb.Fatal(err)
	}
	cfg.Twin = twin
	srv, err := server.Open(*cfg, server.Deps{
		Getenv:  func(string) string { return "" },
		Dir:     tb.TempDir(),
		Version: "test",
		Now:     func() time.Time { return time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		tb.Fatalf("serve %s: %v", twin, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Run: %v", err)
		}
	})
	return srv
}

type fsys = fs.FS

func subFS(f fs.FS, dir string) (fs.FS, error) { return fs.Sub(f, dir) }
