package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestJournalWithinMaxMemory: 20 sessions × 60 GETs, each with a 60 KB
// header value no other request shares, under --max-memory 8MiB (a
// journal budget of 2 MiB, a quarter of it). Every GET is answered; the
// journals hold at most the budget, by the store's account and by what
// their HARs show; each session's journal counts what it dropped, and
// the drops are the budget's. On the old code every entry kept its 60 KB
// header: the journals held 72 MB and dropped nothing (the reported
// hole: 20 × 1,000 such GETs took a process from 20 to 2,085 MiB).
func TestJournalWithinMaxMemory(t *testing.T) {
	const sessions, gets, budget = 20, 60, 2 << 20
	srv := startServer(t, "checkout", "--max-memory", "8MiB")
	base := srv.URL()
	var wg sync.WaitGroup
	refused := make(chan string, sessions*gets)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range gets {
				tag := fmt.Sprintf("%02d.%03d:", i, k)
				resp, body := do(t, base, call{path: "/v1/customers/cus_" + tag[:2], session: fmt.Sprint("reader", i),
					header: map[string]string{"X-Trace": tag + strings.Repeat("t", 60<<10-len(tag))}})
				if resp.StatusCode != http.StatusOK {
					refused <- fmt.Sprintf("%s: %d %.200s", tag, resp.StatusCode, body)
				}
			}
		}()
	}
	wg.Wait()
	close(refused)
	for r := range refused {
		t.Errorf("a GET past the journal budget: want 200, have %s", r)
	}

	var kept, dropped, headerBytes int64
	for i := range sessions {
		name := fmt.Sprint("reader", i)
		resp, body := do(t, base, call{path: "/__wraith/session/" + name + "/journal?limit=1000"})
		var j struct {
			Entries []struct{ Index int64 } `json:"entries"`
			Dropped int64                   `json:"dropped"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &j) != nil {
			t.Fatalf("journal of %s: %d %.300s", name, resp.StatusCode, body)
		}
		if have := int64(len(j.Entries)) + j.Dropped; have != gets {
			t.Errorf("%s: %d entries kept and %d dropped, want them to sum to the %d requests", name, len(j.Entries), j.Dropped, gets)
		}
		if n := len(j.Entries); n > 0 && j.Entries[n-1].Index != gets-1 {
			t.Errorf("%s: want its newest entry (%d) kept, have %d last", name, gets-1, j.Entries[n-1].Index)
		}
		kept += int64(len(j.Entries))
		dropped += j.Dropped
		headerBytes += harHeaderBytes(t, base, name)
	}
	t.Logf("%d GETs: %d entries kept, %d dropped; the HARs show %d KiB of request headers", sessions*gets, kept, dropped, headerBytes>>10)
	if headerBytes > budget {
		t.Errorf("the journals' HARs show %d KiB of request headers, past the journal budget of %d KiB", headerBytes>>10, budget>>10)
	}
	if dropped == 0 {
		t.Errorf("want entries dropped to keep 1,200 GETs with 60 KB headers within %d KiB, have none", budget>>10)
	}

	// The store's own account (not on the old code, which had none).
	mem := srv.eng.Store().Memory()
	if have := mem.Budget(); have != budget {
		t.Errorf("journal budget under --max-memory 8MiB: want %d, have %d", budget, have)
	}
	if have := mem.Journal(); have > budget || have <= 0 {
		t.Errorf("journal bytes accounted: want 1 to %d, have %d", budget, have)
	}
	if have := mem.Swept(); have != dropped {
		t.Errorf("entries the budget dropped: want %d (the sessions' dropped counts), have %d", dropped, have)
	}
	// And the metrics say as much.
	_, metrics := do(t, base, call{path: "/__wraith/metrics"})
	for _, m := range []struct {
		name string
		want func(float64) bool
		say  string
	}{
		{"wraith_journal_swept_total", func(v float64) bool { return int64(v) == dropped }, fmt.Sprint(dropped)},
		{`wraith_client_memory_bytes{kind="journal"}`, func(v float64) bool { return v > 0 && v <= budget }, fmt.Sprint("1 to ", budget)},
		{"wraith_client_memory_budget_bytes", func(v float64) bool { return v == budget }, fmt.Sprint(budget)},
	} {
		v, ok := metricValue(string(metrics), m.name)
		if !ok || !m.want(v) {
			t.Errorf("metric %s: want %s, have %v (found: %v)", m.name, m.say, v, ok)
		}
	}
}

// metricValue finds the sample named name (with its labels, as the text
// exposition writes them) in a metrics page.
func metricValue(page, name string) (float64, bool) {
	for _, line := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// harHeaderBytes sums the request header names and values of a session's
// journal as its HAR shows them, and checks that a 60 KB value is marked
// truncated.
func harHeaderBytes(tb testing.TB, base, name string) int64 {
	tb.Helper()
	resp, body := do(tb, base, call{path: "/__wraith/session/" + name + "/journal?format=har&limit=1000"})
	var doc struct {
		Log struct {
			Entries []struct {
				Request struct {
					Headers []struct{ Name, Value string } `json:"headers"`
				} `json:"request"`
			} `json:"entries"`
		} `json:"log"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &doc) != nil {
		tb.Fatalf("HAR of %s: %d %.300s", name, resp.StatusCode, body)
	}
	var n int64
	for _, e := range doc.Log.Entries {
		for _, h := range e.Request.Headers {
			n += int64(len(h.Name) + len(h.Value))
			if h.Name == "X-Trace" && !strings.Contains(h.Value, "[truncated by wraith: 61440 bytes]") {
				tb.Errorf("%s: a 60 KB X-Trace value in the HAR is not marked truncated: %d bytes", name, len(h.Value))
			}
		}
	}
	return n
}
