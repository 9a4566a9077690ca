package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImportOpenAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec, err := os.ReadFile("../../twin/openapi/testdata/shop.json")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "shop.json"), spec, 0o644)
	os.WriteFile(filepath.Join(dir, "old.json"), []byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{}}`), 0o644)

	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"import", "openapi", "shop.json", "-o", "twins/shop", "--name", "shop"}, f); code != exitOK {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout.String(), "sha256:") {
		t.Errorf("stdout: want the digest, have %q", stdout)
	}
	for _, p := range []string{"twin.toml", "import-report.json"} {
		if _, err := os.Stat(filepath.Join(dir, "twins", "shop", p)); err != nil {
			t.Errorf("want %s written: %v", p, err)
		}
	}
	f, stdout2, _ := testFactory(dir, nil)
	if code := run([]string{"pack", "shop", "-o", "shop.twin"}, f); code != exitOK || stdout2.String() != stdout.String() {
		t.Errorf("pack of the import: want exit 0 and digest %q, have %d %q", stdout, code, stdout2)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "openapi", "old.json", "-o", "x"}, "Swagger 2.0"},
		{[]string{"import", "openapi", "shop.json"}, "needs -o DIR"},
		{[]string{"import", "openapi", "absent.json", "-o", "x"}, "absent.json"},
		{[]string{"import", "openapi", "shop.json", "-o", "x", "--name", "Bad Name"}, "--name"},
		{[]string{"import"}, "wraith import openapi"},
	} {
		f, _, stderr := testFactory(dir, nil)
		if code := run(tt.args, f); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: want exit %d saying %q, have %d: %s", tt.args, exitUsage, tt.want, code, stderr)
		}
	}
}
