package server

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wraithdev/wraith/internal/testbin"
)

// TestMaxMemoryFlag: --max-memory reaches the engine; past it a write is
// 507 memory-limit and a read still answers.
func TestMaxMemoryFlag(t *testing.T) {
	base := startServer(t, "checkout", "--max-memory", "1").URL()
	resp, body := do(t, base, call{method: "POST", path: "/v1/customers", session: "m", form: "description=x"})
	if resp.StatusCode != http.StatusInsufficientStorage || errorCode(body) != "memory-limit" {
		t.Errorf("write past --max-memory: want 507 memory-limit, have %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, base, call{path: "/v1/customers", session: "m"}); resp.StatusCode != http.StatusOK {
		t.Errorf("read past --max-memory: want 200, have %d %s", resp.StatusCode, body)
	}
}

// TestMaxBodyBoundsEntities: --max-body also bounds what an entity grows
// to through updates that are each small.
func TestMaxBodyBoundsEntities(t *testing.T) {
	base := startServer(t, "checkout", "--max-body", "4096").URL()
	resp, body := do(t, base, call{method: "POST", path: "/v1/customers", session: "g", form: "description=x"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	id := between(string(body), `"id":"`, `"`)
	for i := range 20 {
		form := fmt.Sprintf("metadata[k%d]=%s", i, strings.Repeat("v", 400))
		resp, body = do(t, base, call{method: "POST", path: "/v1/customers/" + id, session: "g", form: form})
		if resp.StatusCode != http.StatusOK {
			break
		}
	}
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Wraith-Limit") != "entity-too-large" {
		t.Fatalf("20 updates of 400 bytes under --max-body 4096: want a 400 entity-too-large, have %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, base, call{path: "/v1/customers/" + id, session: "g"}); len(body) > 4096 {
		t.Errorf("the stored entity is %d bytes (status %d), past --max-body 4096", len(body), resp.StatusCode)
	}
}

func between(s, start, end string) string {
	_, s, _ = strings.Cut(s, start)
	s, _, _ = strings.Cut(s, end)
	return s
}

// TestBigArrayBodiesBoundedRSS sends four 10 MiB JSON bodies of five
// million array elements each, at once, to a real wraith-twin process and
// reads its peak resident memory (VmHWM) from /proc. Decoding them took
// 617 MiB each; now they are refused by a scan that builds nothing.
func TestBigArrayBodiesBoundedRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wraith-twin")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to read resident memory")
	}
	bin := bins.Path(t, "./cmd/wraith-twin")
	twin := testbin.StartTwin(t, bin, "checkout", "--port", "0")
	pid := twin.Cmd.Process.Pid
	before := vmHWM(t, pid)

	body := bigArrayBody(5_000_000)
	var wg sync.WaitGroup
	statuses := make([]int, 4)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", twin.URL+"/v1/customers", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Wraith-Session", "big-"+strconv.Itoa(i))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	after := vmHWM(t, pid)
	t.Logf("body %d bytes; wraith-twin VmHWM %d KiB before, %d KiB after four at once", len(body), before, after)
	for i, s := range statuses {
		if s != http.StatusBadRequest {
			t.Errorf("body %d: want 400 (too many parameters), have %d", i, s)
		}
	}
	// Four bodies held at once are 40 MiB; allow as much again for the
	// transport's buffers and the runtime, far below the 2 GiB measured.
	if grew := after - before; grew > 120<<10 {
		t.Errorf("peak RSS grew by %d MiB under four 10 MiB bodies, want at most 120 MiB", grew>>10)
	}
}

// bigArrayBody is a JSON object whose one list has n zeros: 2n bytes.
func bigArrayBody(n int) []byte {
	var b bytes.Buffer
	b.Grow(2*n + 64)
	b.WriteString(`{"description":"x","tags":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('0')
	}
	b.WriteString("]}")
	return b.Bytes()
}

// vmHWM reads a process's peak resident set size in KiB.
func vmHWM(tb testing.TB, pid int) int {
	tb.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				tb.Fatalf("VmHWM line %q: %v", line, err)
			}
			return n
		}
	}
	tb.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// TestMemoryFlagsTakeSizes: --max-memory, --journal-memory and --max-body
// take sizes with units or plain bytes, and refuse anything else with a
// message naming the flag and the syntax (the old flags took bytes only:
// "200MiB" was an error).
func TestMemoryFlagsTakeSizes(t *testing.T) {
	tests := []struct {
		args        []string
		maxMemory   int64
		journal     int64 // the budget the store gets
		errContains string
	}{
		{args: nil, maxMemory: 0, journal: 256 << 20},
		{args: []string{"--max-memory", "200MiB"}, maxMemory: 200 << 20, journal: 50 << 20},
		{args: []string{"--max-memory", "2GiB"}, maxMemory: 2 << 30, journal: 256 << 20},
		{args: []string{"--max-memory", "512MB"}, maxMemory: 512e6, journal: 128e6},
		{args: []string{"--max-memory", "536870912"}, maxMemory: 512 << 20, journal: 128 << 20},
		{args: []string{"--max-memory", "1"}, maxMemory: 1, journal: MinJournalMemory},
		{args: []string{"--journal-memory", "64MiB"}, journal: 64 << 20},
		{args: []string{"--journal-memory", "1GiB", "--max-memory", "1GiB"}, maxMemory: 1 << 30, journal: 256 << 20},
		{args: []string{"--max-memory", "12 parsecs"}, errContains: `invalid value "12 parsecs" for flag -max-memory: want bytes (an integer) or a number with a unit`},
		{args: []string{"--max-memory", "1.5GiB"}, errContains: "-max-memory"},
		{args: []string{"--max-memory", "-1"}, errContains: "-max-memory"},
		{args: []string{"--journal-memory", "200mib"}, errContains: "-journal-memory"},
		{args: []string{"--max-body", "10MiB"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			cfg := Flags(fs)
			err := fs.Parse(tt.args)
			if tt.errContains != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errContains) {
					t.Errorf("want an error containing %q, have %v", tt.errContains, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			if cfg.MaxMemory != tt.maxMemory {
				t.Errorf("--max-memory: want %d bytes, have %d", tt.maxMemory, cfg.MaxMemory)
			}
			if tt.journal != 0 && cfg.journalBudget() != tt.journal {
				t.Errorf("journal budget: want %d bytes, have %d", tt.journal, cfg.journalBudget())
			}
		})
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := Flags(fs)
	if err := fs.Parse([]string{"--journal-memory", "4KiB"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--journal-memory 4096: want 1MiB or more") {
		t.Errorf("--journal-memory 4KiB: want a usage error naming the 1MiB floor, have %v", err)
	}
}
