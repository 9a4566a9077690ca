package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// TestEntityLimit pins the per-session entity limit's rules: what counts,
// what still fits when full, and that reset makes room.
func TestEntityLimit(t *testing.T) {
	base := startServer(t, "checkout", "--max-entities", "2", "--clock", "fixed").URL()
	create := func(session, key string) (*http.Response, []byte) {
		c := call{method: "POST", path: "/v1/customers", session: session, form: "description=" + key}
		if key != "" {
			c.header = map[string]string{"Idempotency-Key": key}
		}
		return do(t, base, c)
	}
	_, first := create("s", "a")
	_, second := create("s", "b")
	var ids [2]struct{ ID string }
	json.Unmarshal(first, &ids[0])
	json.Unmarshal(second, &ids[1])

	steps := []struct {
		name string
		c    call
		want int
		code string
	}{
		{"a third create", call{method: "POST", path: "/v1/customers", session: "s", form: "description=c"}, 507, "session-entity-limit"},
		{"update of an entity the session holds", call{method: "POST", path: "/v1/customers/" + ids[0].ID, session: "s", form: "description=changed"}, 200, ""},
		{"replay of a remembered key", call{method: "POST", path: "/v1/customers", session: "s", form: "description=a", header: map[string]string{"Idempotency-Key": "a"}}, 200, ""},
		{"delete of an entity the session holds", call{method: "DELETE", path: "/v1/customers/" + ids[1].ID, session: "s"}, 200, ""},
		{"a create after a delete: tombstones count", call{method: "POST", path: "/v1/customers", session: "s", form: "description=c"}, 507, "session-entity-limit"},
		{"a read still works", call{path: "/v1/customers/" + ids[0].ID, session: "s"}, 200, ""},
		{"another session is not affected", call{method: "POST", path: "/v1/customers", session: "other", form: "description=c"}, 200, ""},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			resp, body := do(t, base, st.c)
			if resp.StatusCode != st.want || errorCode(body) != st.code {
				t.Fatalf("want %d %q, have %d %s", st.want, st.code, resp.StatusCode, body)
			}
			if st.want == 507 {
				if have := resp.Header.Get("X-Wraith-Provenance"); have != "fault" {
					t.Errorf("provenance: want fault, have %q", have)
				}
				if !bytes.Contains(body, []byte(`"limit":2`)) || !bytes.Contains(body, []byte("--max-entities")) {
					t.Errorf("the error must give the limit and the flag: %s", body)
				}
			}
		})
	}
	if code, body := post(t, base+"/__wraith/session/s/reset", ""); code != http.StatusOK {
		t.Fatalf("reset: %d %s", code, body)
	}
	if resp, body := create("s", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("after reset a create fits again: have %d %s", resp.StatusCode, body)
	}
}

// TestTraversalByConstruction: names that reach the file system or a
// fixture table cannot climb out of where they belong. (Session names never
// reach a file system; the hostile table covers them.)
func TestTraversalByConstruction(t *testing.T) {
	for _, twin := range []string{"../../etc", "../../etc/passwd", "..", "/etc", "twins/../../..", "..\\..\\etc", "checkout:../x", "checkout/../../.."} {
		t.Run("twin "+twin, func(t *testing.T) {
			srv, err := openTwin(t, twin, nil, nil)
			if err == nil {
				srv.ln.Close()
				t.Fatalf("Open(%q) served a twin", twin)
			}
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "twin not found") {
				t.Errorf("Open(%q): want a twin-not-found usage error (exit 2), have %T %v", twin, err, err)
			}
		})
	}
	for _, fixture := range []string{"../x", "checkout:../x", "../../etc/passwd", "checkout:..", ":"} {
		t.Run("fixture "+fixture, func(t *testing.T) {
			srv, err := openWith(t, nil, nil, "--fixture", fixture)
			if err == nil {
				srv.ln.Close()
				t.Fatalf("--fixture %q was accepted", fixture)
			}
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "not found") {
				t.Errorf("--fixture %q: want a fixture-not-found usage error, have %T %v", fixture, err, err)
			}
		})
	}
}
