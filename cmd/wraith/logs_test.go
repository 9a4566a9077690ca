package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestUpDaemonLogs: plain `wraith up` returns 0 with the supervisor in the
// background; each twin's log is in .wraith/logs/NAME.log; `wraith logs`
// shows them; `wraith logs -f` ends when `wraith down` stops the project.
func TestUpDaemonLogs(t *testing.T) {
	p := newProject(t, twoTwins)
	out, errOut, code := p.wraith(t, "up")
	if code != 0 {
		t.Fatalf("wraith up: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := p.wraith(t, "status"); code != 0 {
		t.Fatalf("wraith status after up returned: exit %d, want the project still up", code)
	}
	for _, name := range []string{"billing", "checkout-api"} {
		b, err := os.ReadFile(filepath.Join(p.dir, ".wraith", "logs", name+".log"))
		if err != nil || !strings.Contains(string(b), "serving") {
			t.Errorf("%s.log: want the twin's \"serving\" line, have %q, %v", name, b, err)
		}
	}
	out, errOut, code = p.wraith(t, "logs", "billing")
	if code != 0 || !strings.Contains(out, "serving") || strings.Contains(out, "checkout-api |") {
		t.Errorf("wraith logs billing: want billing's lines only, have exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = p.wraith(t, "logs")
	if !strings.Contains(out, "billing | ") || !strings.Contains(out, "checkout-api | ") {
		t.Errorf("wraith logs: want every twin's lines, prefixed, have\n%s", out)
	}
	if _, errOut, code := p.wraith(t, "logs", "nope"); code != exitUsage || !strings.Contains(errOut, "billing, checkout-api") {
		t.Errorf("wraith logs nope: want exit 2 listing the twins, have %d %s", code, errOut)
	}

	follow := exec.Command(p.bin, "logs", "-f")
	follow.Dir, follow.Env = p.dir, p.env
	var fout bytes.Buffer
	follow.Stdout = &fout
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- follow.Wait() }()
	if _, errOut, code := p.wraith(t, "down"); code != 0 {
		t.Fatalf("wraith down: exit %d %s", code, errOut)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("wraith logs -f: want exit 0 once the supervisor stopped, have %v", err)
		}
	case <-time.After(20 * time.Second):
		follow.Process.Kill()
		t.Fatal("wraith logs -f still ran 20 s after wraith down")
	}
	if !strings.Contains(fout.String(), "billing | ") {
		t.Errorf("wraith logs -f printed no lines:\n%s", fout.String())
	}
}

// TestUpChildErrorKeepsItsLevel: a twin that cannot bind its port fails
// at ERROR in its log and in up's error, not at INFO.
func TestUpChildErrorKeepsItsLevel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	p := newProject(t, "[[twins]]\nname = \"billing\"\nport = "+strconv.Itoa(port)+"\n")
	_, errOut, code := p.wraith(t, "up", "--foreground")
	if code != 1 || !strings.Contains(errOut, "[ERROR] wraith.billing: port "+strconv.Itoa(port)+" on 127.0.0.1 is in use") {
		t.Errorf("want exit 1 with the child's error at ERROR, have %d:\n%s", code, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(p.dir, ".wraith", "logs", "billing.log"))
	if !strings.Contains(string(b), "[ERROR] billing: port") {
		t.Errorf("billing.log: want the error at ERROR, have:\n%s", b)
	}
}
