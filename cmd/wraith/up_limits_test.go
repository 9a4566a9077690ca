package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestUpForwardsLimits: the manifest's serve limits reach the wraith-twin
// child as flags, and the child keeps them: a journal of journal_limit
// entries, a body over max_body refused.
func TestUpForwardsLimits(t *testing.T) {
	t.Parallel()
	p := newProject(t, `[defaults]
journal_limit = 3
max_memory = "512MiB"

[[twins]]
name = "billing"
max_body = "1KiB"
`)
	if out, errOut, code := p.wraith(t, "up"); code != 0 {
		t.Fatalf("wraith up: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { p.wraith(t, "down") })
	envJSON, _, code := p.wraith(t, "env", "--format", "json")
	var env envDoc
	if err := json.Unmarshal([]byte(envJSON), &env); code != 0 || err != nil {
		t.Fatalf("wraith env: exit %d, %v\n%s", code, err, envJSON)
	}
	billing := env.Twins["billing"]
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", billing.PID))
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--journal-limit=3", "--max-memory=536870912", "--max-body=1024"} {
		if !bytes.Contains(cmdline, []byte("\x00"+flag+"\x00")) {
			t.Errorf("the child's argv has no %s: %q", flag, cmdline)
		}
	}

	for i := range 5 {
		if status, body := httpGet(t, billing.URL+"/v1/customers/cus_123", "X-Wraith-Session", "s"); status != http.StatusOK {
			t.Fatalf("GET %d: %d %s", i, status, body)
		}
	}
	status, body := httpGet(t, billing.URL+"/__wraith/session/s/journal")
	var journal struct {
		Entries []struct{ Index int } `json:"entries"`
		Dropped int                   `json:"dropped"`
	}
	if err := json.Unmarshal(body, &journal); status != http.StatusOK || err != nil {
		t.Fatalf("journal: %d %v %s", status, err, body)
	}
	if len(journal.Entries) != 3 || journal.Dropped != 2 || journal.Entries[0].Index != 2 {
		t.Errorf("after 5 requests under journal_limit = 3: want entries 2-4 and 2 dropped, have %s", body)
	}

	resp, err := http.Post(billing.URL+"/v1/customers", "application/x-www-form-urlencoded", strings.NewReader("description="+strings.Repeat("x", 2048)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 2 KiB body under max_body = \"1KiB\": want 413, have %s", resp.Status)
	}
}
