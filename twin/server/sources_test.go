package server

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stripe/stripe-go/v82"
)

// nodeClients installs the Node clients of testdata/node with the make
// target that pins them, once per test binary, and returns their folder.
// It skips the test, saying why, where node or npm cannot install them.
var nodeClients = sync.OnceValues(func() (string, error) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "testdata", "node")
	if _, err := exec.LookPath("node"); err != nil {
		return "", err
	}
	if out, err := exec.Command("make", "-C", root, "node-clients").CombinedOutput(); err != nil {
		return "", &exec.Error{Name: "make node-clients: " + string(out), Err: err}
	}
	for _, pkg := range []string{"stripe", "har-validator", "@octokit/rest"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			return "", err
		}
	}
	return dir, nil
})

func needNode(tb testing.TB) string {
	tb.Helper()
	dir, err := nodeClients()
	if err != nil {
		tb.Skipf("the Node clients of testdata/node are not installed (make node-clients needs node and the npm registry): %v", err)
	}
	return dir
}

// sessionOf returns what the twin's session list says of name, or nil.
func sessionSummary(tb testing.TB, base, name string) map[string]any {
	tb.Helper()
	_, body := do(tb, base, call{path: "/__wraith/session"})
	var list struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		tb.Fatalf("session list: %v: %s", err, body)
	}
	for _, s := range list.Sessions {
		if s["session"] == name {
			return s
		}
	}
	return nil
}

// TestStripeGoPathSession points stripe-go at a backend URL ending in
// /__s/agent-2: with no header set, its requests land in agent-2.
// stripe-go v82 then refuses every answer on its side, because it checks
// that the URL's whole path starts with /v1 (extractVersion in its Do);
// the test pins that, so docs/serving.md's advice (use the credential
// suffix with stripe-go) stays true, and checks where the requests went.
func TestStripeGoPathSession(t *testing.T) {
	srv := startServer(t, "checkout", "--unknown-entity", "not_found")
	backends := stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(srv.URL() + "/__s/agent-2"),
		MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	sc := stripe.NewClient("sk_test_wraith", stripe.WithBackends(backends))
	_, err := sc.V1Customers.Create(context.Background(), &stripe.CustomerCreateParams{Description: stripe.String("path session")})
	if err != nil && !strings.Contains(err.Error(), "unknown path prefix /__s/agent-2/v1/customers") {
		t.Fatalf("create through /__s/agent-2: %v", err)
	}
	s := sessionSummary(t, srv.URL(), "agent-2")
	if s == nil {
		t.Fatalf("no session agent-2 after stripe-go's request")
	}
	if s["requests"] != 1.0 {
		t.Errorf("agent-2: want the create as its one request, have %v", s)
	}
	if s := sessionSummary(t, srv.URL(), "default"); s != nil {
		t.Errorf("stripe-go's request also reached the default session: %v", s)
	}
	resp, body := do(t, srv.URL(), call{path: "/v1/customers?limit=100", session: "agent-2"})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"description":"path session"`) {
		t.Errorf("agent-2's customers do not hold stripe-go's create: %d %s", resp.StatusCode, body)
	}
}

// TestStripeGoCredentialSession gives stripe-go the key
// sk_test_x.wraith.agent-2, its other way into a session without a header.
func TestStripeGoCredentialSession(t *testing.T) {
	srv := startServer(t, "checkout", "--unknown-entity", "not_found")
	backends := stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(srv.URL()),
		MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	sc := stripe.NewClient("sk_test_x.wraith.agent-2", stripe.WithBackends(backends))
	ctx := context.Background()
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Description: stripe.String("credential session")})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if have := cus.LastResponse.Header.Get("X-Wraith-Session"); have != "agent-2" {
		t.Errorf("X-Wraith-Session: want agent-2, have %q", have)
	}
	read, err := sc.V1Customers.Retrieve(ctx, cus.ID, nil)
	if err != nil || read.ID != cus.ID {
		t.Fatalf("read back %s: %v", cus.ID, err)
	}
	if resp, _ := do(t, srv.URL(), call{path: "/v1/customers/" + cus.ID}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the default session read agent-2's customer: want 404, have %d", resp.StatusCode)
	}
}

// TestStripeNodeCredentialSession runs stripe-node with its key set to
// sk_test_x.wraith.agent-1: its requests land in agent-1.
func TestStripeNodeCredentialSession(t *testing.T) {
	dir := needNode(t)
	srv := startServer(t, "checkout", "--unknown-entity", "not_found")
	cmd := exec.Command("node", filepath.Join(dir, "stripe_credential.js"), srv.URL(), "sk_test_x.wraith.agent-1")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("stripe-node: %v\n%s", err, stderr)
	}
	var have struct {
		ID             string `json:"id"`
		Session        string `json:"session"`
		ReadID         string `json:"read_id"`
		ReadSession    string `json:"read_session"`
		ReadProvenance string `json:"read_provenance"`
	}
	if err := json.Unmarshal(out, &have); err != nil {
		t.Fatalf("stripe-node printed %s: %v", out, err)
	}
	if have.Session != "agent-1" || have.ReadSession != "agent-1" || have.ReadID != have.ID || have.ReadProvenance != "handler" {
		t.Errorf("stripe-node with key sk_test_x.wraith.agent-1: want both answers from agent-1 (the read handler), have %+v", have)
	}
	if sessionSummary(t, srv.URL(), "agent-1") == nil {
		t.Fatalf("no session agent-1 after stripe-node's requests")
	}
	resp, _ := do(t, srv.URL(), call{path: "/v1/customers/" + have.ID, session: "agent-1"})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("agent-1 reading stripe-node's customer by header: want 200, have %d", resp.StatusCode)
	}
	if resp, _ := do(t, srv.URL(), call{path: "/v1/customers/" + have.ID}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the default session read agent-1's customer: want 404, have %d", resp.StatusCode)
	}
}

// TestOctokitSessions runs Octokit against the github twin with no
// header: once with a base URL ending in /__s/agent-3, once with the
// token ghp_x.wraith.agent-4.
func TestOctokitSessions(t *testing.T) {
	dir := needNode(t)
	srv := startServer(t, "github", "--unknown-entity", "not_found")
	for _, tc := range []struct{ mode, session string }{{"path", "agent-3"}, {"credential", "agent-4"}} {
		t.Run(tc.mode, func(t *testing.T) {
			cmd := exec.Command("node", filepath.Join(dir, "octokit_sessions.mjs"), srv.URL(), tc.mode, tc.session)
			cmd.Dir = dir
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("octokit: %v\n%s", err, stderr.String())
			}
			var have struct {
				Sessions       []string `json:"sessions"`
				Number         int      `json:"number"`
				ReadProvenance string   `json:"read_provenance"`
			}
			if err := json.Unmarshal(out, &have); err != nil {
				t.Fatalf("octokit printed %s: %v", out, err)
			}
			for _, s := range have.Sessions {
				if s != tc.session {
					t.Errorf("want every answer from %s, have %v", tc.session, have.Sessions)
					break
				}
			}
			if have.Number != 1 || have.ReadProvenance != "handler" {
				t.Errorf("issue read back: %+v", have)
			}
		})
	}
	if sessionSummary(t, srv.URL(), "default") != nil {
		t.Errorf("Octokit's requests reached the default session")
	}
}
