package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpServers is where `make mcp-servers` installs the MCP servers pinned
// in testdata/mcp/package.json.
func mcpServers(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(moduleRootDir(tb), "testdata", "mcp", "node_modules")
	if _, err := os.Stat(filepath.Join(dir, "@stripe", "mcp", "dist", "index.js")); err != nil {
		tb.Skipf("the MCP servers are not installed: make mcp runs this test with them (%v)", err)
	}
	return dir
}

// mcpClient drives an MCP server over its standard input and output:
// JSON-RPC 2.0, one message a line.
type mcpClient struct {
	tb    testing.TB
	in    io.WriteCloser
	lines chan string
	next  int
	cmd   *exec.Cmd
}

func startMCP(tb testing.TB, p *project, argv ...string) *mcpClient {
	tb.Helper()
	cmd := exec.Command(p.bin, argv...)
	cmd.Dir, cmd.Env, cmd.Stderr = p.dir, p.env, p.logs
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	c := &mcpClient{tb: tb, in: in, lines: make(chan string, 16), next: 1, cmd: cmd}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	tb.Cleanup(func() {
		in.Close() // end of input: an MCP server's signal to exit
		if err := cmd.Wait(); err != nil {
			tb.Logf("MCP server under wraith run: %v", err)
		}
	})
	c.call("initialize", map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "wraith-test", "version": "1"}})
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

func (c *mcpClient) send(msg any) {
	c.tb.Helper()
	b, _ := json.Marshal(msg)
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.tb.Fatal(err)
	}
}

// call sends a request and returns its result, failing on an error.
func (c *mcpClient) call(method string, params any) json.RawMessage {
	c.tb.Helper()
	id := c.next
	c.next++
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.tb.Fatalf("%s: the server closed its output", method)
			}
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal([]byte(line), &m) != nil || m.ID == nil || *m.ID != id {
				continue // a notification or a log line
			}
			if m.Error != nil {
				c.tb.Fatalf("%s: %s", method, m.Error)
			}
			return m.Result
		case <-deadline:
			c.tb.Fatalf("%s: no answer within 60 s", method)
		}
	}
}

// tool calls a tool and returns its text, failing if the tool says it
// failed.
func (c *mcpClient) tool(name string, args map[string]any) string {
	c.tb.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(c.call("tools/call", map[string]any{"name": name, "arguments": args}), &r); err != nil {
		c.tb.Fatal(err)
	}
	var text strings.Builder
	for _, ct := range r.Content {
		text.WriteString(ct.Text)
	}
	if r.IsError {
		c.tb.Fatalf("%s: %s", name, text.String())
	}
	return text.String()
}

// TestRunMCPServers runs GitHub's and Stripe's MCP servers, unmodified,
// under wraith run, and drives them over MCP's stdio JSON-RPC: every call
// they make to api.github.com and api.stripe.com is answered by the twins,
// in the run's session.
func TestRunMCPServers(t *testing.T) {
	t.Parallel()
	mods := mcpServers(t)
	needNamespaces(t)
	p := newProject(t, "[[twins]]\nname = \"github\"\n\n[[twins]]\nname = \"stripe\"\n", "GITHUB_PERSONAL_ACCESS_TOKEN=ghp_test")
	if _, stderr, code := p.wraith(t, "up"); code != 0 {
		t.Fatalf("wraith up: exit %d: %s", code, stderr)
	}
	out, _, _ := p.wraith(t, "env", "--format", "json")
	var doc envDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}

	t.Run("server-github", func(t *testing.T) {
		gh := startMCP(t, p, "run", "--session", "mcp-github", "--", "node", filepath.Join(mods, "@modelcontextprotocol", "server-github", "dist", "index.js"))
		var repo struct {
			Name  string `json:"name"`
			Owner struct {
				Login string `json:"login"`
			} `json:"owner"`
		}
		if err := json.Unmarshal([]byte(gh.tool("create_repository", map[string]any{"name": "sandboxed"})), &repo); err != nil || repo.Name != "sandboxed" {
			t.Fatalf("create_repository: %v %+v", err, repo)
		}
		owner := repo.Owner.Login
		issue := gh.tool("create_issue", map[string]any{"owner": owner, "repo": "sandboxed", "title": "from an MCP server"})
		if !strings.Contains(issue, `"title": "from an MCP server"`) {
			t.Errorf("create_issue: %s", issue)
		}
		if list := gh.tool("list_issues", map[string]any{"owner": owner, "repo": "sandboxed"}); !strings.Contains(list, "from an MCP server") {
			t.Errorf("list_issues: want the issue, have %s", list)
		}
		want := []string{"POST /user/repos 201", fmt.Sprintf("POST /repos/%s/sandboxed/issues 201", owner), fmt.Sprintf("GET /repos/%s/sandboxed/issues 200", owner)}
		if have := journal(t, doc.Twins["github"].URL, "mcp-github"); strings.Join(have, ",") != strings.Join(want, ",") {
			t.Errorf("journal: want %q, have %q", want, have)
		}
	})
	t.Run("stripe-mcp", func(t *testing.T) {
		st := startMCP(t, p, "run", "--session", "mcp-stripe", "--", "node", filepath.Join(mods, "@stripe", "mcp", "dist", "index.js"), "--tools=all", "--api-key=sk_test_mcp")
		var created struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(st.tool("create_customer", map[string]any{"name": "Ada", "email": "ada@example.com"})), &created); err != nil || !strings.HasPrefix(created.ID, "cus_") {
			t.Fatalf("create_customer: %v %+v", err, created)
		}
		if list := st.tool("list_customers", map[string]any{}); !strings.Contains(list, created.ID) {
			t.Errorf("list_customers: want %s, have %s", created.ID, list)
		}
		want := []string{"POST /v1/customers 200", "GET /v1/customers 200"}
		if have := journal(t, doc.Twins["stripe"].URL, "mcp-stripe"); strings.Join(have, ",") != strings.Join(want, ",") {
			t.Errorf("journal: want %q, have %q", want, have)
		}
	})
}
