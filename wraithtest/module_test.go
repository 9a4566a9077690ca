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
// copy would), and runs go vet and go test in it.
//
// The harness module's graph is not this module's: seen from a dependant,
// the go.mod of every version an unpruned dependency names is read
// (hclog's colour library at v1.13.0 names go-colorable@v0.1.9, which
// this module's own build never fetches). So the harness fetches its
// modules first (go list -deps -test), through the environment's module
// proxy as a user's module would, and only then builds with GOPROXY=off:
// the build proves it needs nothing more. Offline, the fetch fails and the
// test skips, unless CI=true. `make fresh-modules` runs this test with an
// empty module cache, which is how a warm cache once hid the missing
// download.
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
	goCmd := func(env []string, args ...string) ([]byte, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append([]string{"GOFLAGS=-mod=mod", "GOWORK=off"}, env...)...)
		return cmd.CombinedOutput()
	}
	if out, err := goCmd(nil, "list", "-deps", "-test", "./..."); err != nil {
		if os.Getenv("CI") != "true" {
			t.Skipf("go list -deps -test in the harness module could not fetch its modules (offline?), so it cannot be built: %v\n%s", err, out)
		}
		t.Fatalf("go list -deps -test in the harness module: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		out, err := goCmd([]string{"GOPROXY=off"}, args...)
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
