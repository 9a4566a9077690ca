package resolve

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/openapi"
)

// TestResolveSpecFile resolves an OpenAPI document by path, imported in
// memory, and refuses a Swagger 2.0 one saying so and how to convert it.
func TestResolveSpecFile(t *testing.T) {
	dir := t.TempDir()
	spec, err := os.ReadFile("../openapi/testdata/shop.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Shop API.json"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old.json"), []byte(`{"swagger":"2.0","info":{"title":"old","version":"1"},"paths":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old.yaml"), []byte("swagger: \"2.0\"\ninfo: {title: old, version: \"1\"}\npaths: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := New(dir, "", nil)
	src, err := r.Resolve("Shop API.json")
	if err != nil {
		t.Fatal(err)
	}
	tw, err := src.Load()
	if err != nil {
		t.Fatalf("load the in-memory import: %v", err)
	}
	if tw.Name() != "shop-api" || len(tw.Manifest.Resources) != 1 {
		t.Errorf("want twin shop-api with one resource, have %s with %d", tw.Name(), len(tw.Manifest.Resources))
	}
	for _, f := range []string{"old.yaml", "old.json"} {
		_, err := r.Resolve(f)
		if !errors.Is(err, ErrNotFound) || !errors.Is(err, openapi.ErrSwagger2) {
			t.Errorf("swagger 2.0 %s: want ErrNotFound (serve exits 2) and ErrSwagger2, have %v", f, err)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "not found") || !strings.Contains(msg, f+": this is a Swagger 2.0 document") || !strings.Contains(msg, "convert it") {
			t.Errorf("swagger 2.0 %s: want the file named as Swagger 2.0 and how to convert it, not \"not found\"; have %q", f, msg)
		}
	}
	if _, err := r.Resolve("absent.json"); !errors.Is(err, ErrNotFound) {
		t.Errorf("absent spec: want ErrNotFound, have %v", err)
	}
}
