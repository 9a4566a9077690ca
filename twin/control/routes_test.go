package control_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/control"
)

// TestReadyPathsAreTheTable: the paths the ready document lists are the
// route table's, key for key, so the two cannot drift apart.
func TestReadyPathsAreTheTable(t *testing.T) {
	b, err := json.Marshal(ipc.ControlPaths())
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	have := control.ReadyPaths()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if have[k] != want[k] {
			t.Errorf("%s: want %q, have %q", k, want[k], have[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(have)) {
		if _, ok := want[k]; !ok {
			t.Errorf("the table lists %s (%s), which the ready document does not", k, have[k])
		}
	}
}

// TestExempt: the open routes are the probes, whatever the method, and
// nothing else of the table.
func TestExempt(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/__wraith/health", true},
		{"/__wraith/ready", true},
		{"/__wraith/info", true},
		{"/__wraith/session", false},
		{"/__wraith/session/{session}/state", false},
		{"/__wraith/health/", false},
		{"/__wraith/metrics", false},
		{"/__wraith/ui", false},
	} {
		if have := control.Exempt(tc.path); have != tc.want {
			t.Errorf("Exempt(%q): want %v, have %v", tc.path, tc.want, have)
		}
	}
}

// TestEveryRouteIsServed calls each route of the table with its method
// and a valid session name: none may answer the catch-all's
// control-not-found or method-not-allowed, which would mean the mux left
// it out.
func TestEveryRouteIsServed(t *testing.T) {
	h, _ := newCheckout(t)
	for _, rt := range control.Routes() {
		if rt.Path == "/__wraith/ui" || rt.Observed {
			continue // served in front of the control plane; needs an observer
		}
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			path := strings.ReplaceAll(rt.Path, "{session}", "nobody")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(rt.Method, path, strings.NewReader("{}")))
			body := rec.Body.String()
			if rec.Code == http.StatusMethodNotAllowed || strings.Contains(body, `"control-not-found"`) {
				t.Errorf("want the route's own answer, have %d %s", rec.Code, body)
			}
		})
	}
}
