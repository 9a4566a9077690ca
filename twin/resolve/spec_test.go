package resolve

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestResolveSpecFile resolves an OpenAPI document by path, imported in
// memory, and refuses a Swagger 2.0 one as not a twin.
func TestResolveSpecFile(t *testing.T) {
	dir := t.TempDir()
	spec, err := os.ReadFile("../openapi/testdata/shop.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Shop API.json"), spec, 0o644); err != nil {
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
	if _, err := r.Resolve("old.yaml"); !errors.Is(err, ErrNotFound) {
		t.Errorf("swagger 2.0: want ErrNotFound saying why, have %v", err)
	}
	if _, err := r.Resolve("absent.json"); !errors.Is(err, ErrNotFound) {
		t.Errorf("absent spec: want ErrNotFound, have %v", err)
	}
}
