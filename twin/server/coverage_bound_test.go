package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestCoverageMissKeepsAnExcerpt: over real connections, a miss of a
// 20 KB path is listed with the first 512 bytes of its path and its whole
// length, and a global reset leaves the report as it is (it covers the
// process since start; it is bounded in bytes instead). On the old code
// the report held the whole path, as many times as distinct paths came.
func TestCoverageMissKeepsAnExcerpt(t *testing.T) {
	base := startServer(t, "checkout").URL()
	long := "/v1/teleporters/" + strings.Repeat("x", 20<<10)
	if resp, body := do(t, base, call{path: long, session: "probe"}); resp.StatusCode != http.StatusNotImplemented {
		t.Fatalf("a route miss: want 501, have %d %.200s", resp.StatusCode, body)
	}
	if resp, body := do(t, base, call{method: "POST", path: "/__wraith/reset"}); resp.StatusCode != http.StatusOK {
		t.Fatalf("global reset: %d %s", resp.StatusCode, body)
	}
	resp, body := do(t, base, call{path: "/__wraith/coverage"})
	var r struct {
		Misses []struct {
			Path      string `json:"path"`
			PathBytes int    `json:"path_bytes"`
			Count     int    `json:"count"`
		} `json:"misses"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &r) != nil || len(r.Misses) != 1 {
		t.Fatalf("coverage after a global reset: want the one miss, have %d %.300s", resp.StatusCode, body)
	}
	m := r.Misses[0]
	if len(m.Path) != 512 || !strings.HasPrefix(long, m.Path) || m.PathBytes != len(long) || m.Count != 1 {
		t.Errorf("the miss: want 512 bytes of its path and path_bytes %d, have %d bytes, path_bytes %d, count %d", len(long), len(m.Path), m.PathBytes, m.Count)
	}
}
