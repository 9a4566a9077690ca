package wraithtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// harnessTest is the test file of a user's module: it imports wraithtest
// as a dependency would, from outside this module.
const harnessTest = `package harness

import (
	"net/http"
	"testing"

	"github.com/wraithdev/wraith/wraithtest"
)

func TestAgainstTheTwin(t *testing.T) {
	srv := wraithtest.Start(t, "checkout", wraithtest.Seed(1))
	resp, err := srv.Session("ci").Get(srv.URL + "/v1/customers/cus_123")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Wraith-Session") != "ci" {
		t.Fatalf("want 200 in session ci, have %s in %q", resp.Status, resp.Header.Get("X-Wraith-Session"))
	}
}
`

// TestExternalModule builds a small module in a temporary folder that
// requires this one (through a replace directive, as a fork or a vendored
// copy would), and runs go vet and go test in it. Modules come from the
// local module cache only (GOPROXY=off): this module's own build has
// fetched them already.
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command; skipped with -short")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatalf("this module's go.sum, for the harness module: %v", err)
	}
	dir := t.TempDir()
	gomod := "module example.com/harness\n\ngo 1.26\n\n" +
		"require github.com/wraithdev/wraith v0.0.0\n\n" +
		"replace github.com/wraithdev/wraith => " + root + "\n"
	files := map[string]string{"go.mod": gomod, "go.sum": string(sum), "harness_test.go": harnessTest}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in the harness module: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "vet" && len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("go vet: want no findings, have:\n%s", out)
		}
		if args[0] == "test" && !strings.Contains(string(out), "ok  \texample.com/harness") {
			t.Errorf("go test: want ok for example.com/harness, have:\n%s", out)
		}
	}
}
