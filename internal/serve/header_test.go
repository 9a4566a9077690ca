package serve

import (
	"testing"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/engine"
)

// TestSessionHeaderAgrees: the twin reads its session from
// engine.SessionHeader and publishes that name in the ready document;
// ipc.SessionHeader is the same name for the clients that read no ready
// document (wraithtest, the supervisor's fake child). The twin's is the
// one to change; this keeps the contract's copy with it. The two packages
// meet only here, in the serve entry point that imports both.
func TestSessionHeaderAgrees(t *testing.T) {
	if want, have := engine.SessionHeader, ipc.SessionHeader; have != want {
		t.Errorf("ipc.SessionHeader: want the twin's engine.SessionHeader %q, have %q: change ipc's to match", want, have)
	}
}
