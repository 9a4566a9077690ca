package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/wraithdev/wraith/supervisor"
)

// TestUpRestartsOnStateDir: a twin with a state_dir that is SIGKILLed
// comes back, restarted by the supervisor on its folder, with the
// customer it was answered for, and wraith status shows the session it
// recovered.
func TestUpRestartsOnStateDir(t *testing.T) {
	t.Parallel()
	p := newProject(t, "[[twins]]\nname = \"shop\"\ntwin = \"checkout\"\nstate_dir = \".wraith/state/shop\"\n")
	if out, errOut, code := p.wraith(t, "up", "--detach"); code != 0 {
		t.Fatalf("up --detach: exit %d\n%s%s", code, out, errOut)
	}
	before := p.state(t, "ready", func(st supervisor.State) bool { return st.Phase == supervisor.StatusReady }).Twins[0]
	req, _ := http.NewRequest(http.MethodPost, before.Ready.Serve.URL+"/v1/customers", strings.NewReader("name=kept"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Wraith-Session", "agent")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	created, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var c struct{ ID string }
	if json.Unmarshal(created, &c); resp.StatusCode != 200 || c.ID == "" {
		t.Fatalf("create: %d %s", resp.StatusCode, created)
	}
	if err := syscall.Kill(before.Ready.Serve.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	after := p.state(t, "shop restarted", func(st supervisor.State) bool {
		return st.Twins[0].Restarts == 1 && st.Twins[0].Status == supervisor.StatusReady
	}).Twins[0]
	if status, body := httpGet(t, after.Ready.Serve.URL+"/v1/customers/"+c.ID, "X-Wraith-Session", "agent"); status != 200 || !bytes.Equal(body, created) {
		t.Errorf("the customer after the restart:\nwant 200 %s\nhave %d %s", created, status, body)
	}
	out, _, code := p.wraith(t, "status", "--format", "json")
	var doc statusDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("status: exit %d %v\n%s", code, err, out)
	}
	if tw := doc.Twins[0]; tw.Recovered == nil || *tw.Recovered != 1 || tw.StateDir != ".wraith/state/shop" {
		t.Errorf("status after the restart: want 1 session recovered from .wraith/state/shop, have %+v", tw)
	}
}
