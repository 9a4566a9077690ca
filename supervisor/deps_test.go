package supervisor

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportBoundary keeps the process boundary real: the supervisor
// shares nothing with the twins but the ipc package.
func TestImportBoundary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if !strings.HasPrefix(pkg, "github.com/wraithdev/wraith/") {
			continue
		}
		switch pkg {
		case "github.com/wraithdev/wraith/supervisor", "github.com/wraithdev/wraith/ipc":
		default:
			t.Errorf("supervisor depends on %s; it may only use ipc", pkg)
		}
	}
}
