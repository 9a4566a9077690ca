package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/supervisor"
)

func TestStatusProbesHealth(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/__wraith/health" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"status":"ok"}`))
	}))
	defer srv.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()

	healthy := readyTwin("billing", srv.URL, 8081, 101)
	healthy.Restarts = 2
	healthy.Ready.Serve.State = &ipc.State{Dir: ".wraith/state/billing", RecoveredSessions: 7}
	down := readyTwin("checkout", goneURL, 9000, 102)
	restarting := readyTwin("orders", goneURL, 9001, 103)
	restarting.Status = supervisor.StatusRestarting
	dir := fakeProject(t, true, healthy, down, restarting)

	f, stdout, stderr := testFactory(dir, nil)
	opts := &statusOptions{Format: "text", Timeout: time.Second, f: f, now: time.Now}
	err := runStatus(context.Background(), opts)
	var silent *silentError
	if !errors.As(err, &silent) || silent.code != exitRuntime {
		t.Fatalf("want a silent exit 1, have %v", err)
	}
	if stderr.String() != "wraith: 2 of 3 twins are not healthy\n" {
		t.Errorf("stderr: %q", stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "project shop in "+dir) || !strings.Contains(lines[0], "up 1m0s") {
		t.Fatalf("status:\n%s", stdout)
	}
	for i, want := range [][]string{
		{"TWIN", "STATUS", "PID", "PORT", "UPTIME", "RESTARTS", "RECOVERED", "HEALTH", "URL"},
		{"billing", "ready", "101", "8081", "30s", "2", "7", "ok", srv.URL},
		{"checkout", "ready", "102", "9000", "30s", "0", "-", "unreachable", goneURL},
		{"orders", "restarting", "103", "9001", "-", "0", "-", "unreachable", goneURL},
	} {
		if have := strings.Fields(lines[i+1]); strings.Join(have, " ") != strings.Join(want, " ") {
			t.Errorf("row %d: want %q, have %q", i, want, have)
		}
	}

	f, stdout, _ = testFactory(dir, nil)
	opts = &statusOptions{Format: "json", Timeout: time.Second, f: f, now: time.Now}
	runStatus(context.Background(), opts)
	var doc statusDoc
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Project != "shop" || len(doc.Twins) != 3 || doc.Twins[0].Health != "ok" || doc.Twins[0].UptimeSeconds != 30 || doc.Twins[0].Restarts != 2 {
		t.Errorf("status json: %+v", doc)
	}
	if tw := doc.Twins[0]; tw.StateDir != ".wraith/state/billing" || tw.Recovered == nil || *tw.Recovered != 7 || doc.Twins[1].Recovered != nil {
		t.Errorf("status json: want billing's state folder with 7 sessions recovered and none for checkout, have %+v and %+v", tw, doc.Twins[1])
	}
}
