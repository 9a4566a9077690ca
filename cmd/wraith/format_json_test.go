package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackFormatJSON: pack --format json prints one document naming the
// twin, the digest text output prints, and the file it wrote.
func TestPackFormatJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"pack", "checkout", "-o", "out/checkout.twin", "--format", "json"}, f); code != exitOK {
		t.Fatalf("pack --format json: exit %d: %s", code, stderr)
	}
	var doc packDoc
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("pack --format json: not one JSON document: %v\n%s", err, stdout)
	}
	file := filepath.Join(dir, "out", "checkout.twin")
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	want := packDoc{Twin: "checkout", Digest: embeddedDigest(t, "checkout"), File: file, Bytes: fi.Size(), Files: doc.Files}
	if doc != want || doc.Files < 3 {
		t.Errorf("pack --format json: want %+v (and a few files), have %+v", want, doc)
	}
}

// TestImportFormatJSON: import openapi --format json prints the digest,
// the folder and the counts import-report.json holds.
func TestImportFormatJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec, err := os.ReadFile("../../twin/openapi/testdata/shop.json")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "shop.json"), spec, 0o644)
	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"import", "openapi", "shop.json", "-o", "twins/shop", "--name", "shop", "--format", "json"}, f); code != exitOK {
		t.Fatalf("import --format json: exit %d: %s", code, stderr)
	}
	var doc struct {
		importDoc
		Counts map[string]int `json:"counts"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("import --format json: not one JSON document: %v\n%s", err, stdout)
	}
	out := filepath.Join(dir, "twins", "shop")
	if doc.Twin != "shop" || !strings.HasPrefix(doc.Digest, "sha256:") || doc.Dir != out || doc.Report != filepath.Join(out, "import-report.json") {
		t.Errorf("import --format json: have %s", stdout)
	}
	b, err := os.ReadFile(doc.Report)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Counts map[string]int `json:"counts"`
	}
	if err := json.Unmarshal(b, &report); err != nil || len(report.Counts) == 0 {
		t.Fatalf("import-report.json: no counts (%v)", err)
	}
	for k, v := range report.Counts {
		if have, ok := doc.Counts[k]; !ok || have != v {
			t.Errorf("counts.%s: want %d as in import-report.json, have %d (present: %v)", k, v, have, ok)
		}
	}
	if doc.Counts["resources"] == 0 {
		t.Errorf("counts: want the shop's resources, have %v", doc.Counts)
	}
}

func TestPackImportFormatUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"pack", "checkout", "-o", "c.twin", "--format", "yaml"},
		{"import", "openapi", "shop.json", "-o", "x", "--format", "xml"},
	} {
		f, _, stderr := testFactory(t.TempDir(), nil)
		if code := run(args, f); code != exitUsage || !strings.Contains(stderr.String(), "--format must be text or json") {
			t.Errorf("%v: want exit %d saying --format must be text or json, have %d: %s", args, exitUsage, code, stderr)
		}
	}
}
