package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
)

func TestRunUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "wraith run needs a command"},
		{[]string{"run", "--isolation", "jail", "--", "true"}, "--isolation must be auto, netns or proxy"},
		{[]string{"run", "--session", "..", "--", "true"}, "--session:"},
		{[]string{"run", "--", "true"}, "no wraith project is up in"},
		{[]string{"proxy", "--port", "70000"}, "--port 70000 is out of range"},
		{[]string{"proxy", "--passthrough", "https://pypi.org"}, "is not a host name"},
		{[]string{"env", "--session", "a b"}, "--session:"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, stderr := testFactory(t.TempDir(), nil)
			if code := run(tt.args, f); code != exitUsage {
				t.Fatalf("want exit %d, have %d (%s)", exitUsage, code, stderr)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("want %q in %q", tt.want, stderr.String())
			}
		})
	}
}

// Flags end at the command: its own flags are its own.
func TestRunFlags(t *testing.T) {
	t.Parallel()
	var have *runOptions
	f, _, stderr := testFactory(t.TempDir(), nil)
	root := newRootCmd(f)
	root.SetArgs([]string{"run", "--session", "s1", "--twin", "stripe", "--twin", "github", "curl", "-s", "--twin", "x"})
	for _, c := range root.Commands() {
		if c.Name() == "run" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(newRunCmd(f, func(_ context.Context, o *runOptions) error { have = o; return nil }))
	if err := root.Execute(); err != nil {
		t.Fatalf("%v (%s)", err, stderr)
	}
	if have.Session != "s1" || strings.Join(have.Twins, ",") != "stripe,github" || strings.Join(have.Argv, " ") != "curl -s --twin x" || have.Isolation != isolationAuto {
		t.Errorf("have %+v", have)
	}
}

// needNamespaces skips a test that needs wraith run's network namespace
// where the system refuses unprivileged user namespaces; CI must have them.
func needNamespaces(tb testing.TB) {
	tb.Helper()
	if out, err := exec.Command("unshare", "-Urnm", "true").CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true: unshare -Urnm true: %v %s", err, out)
		}
		tb.Skipf("unshare -Urnm true: %v %s: this test needs unprivileged user and network namespaces", err, out)
	}
}

// needProgram skips a test whose client program is missing (make
// sandbox-clients installs it); CI must have it.
func needProgram(tb testing.TB, path string) {
	tb.Helper()
	if _, err := exec.LookPath(path); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true: %s: %v (make sandbox-clients installs it)", path, err)
		}
		tb.Skipf("%s: %v (make sandbox-clients installs it)", path, err)
	}
}

// sandboxProject is a running project with the stripe twin and a proxy.
func sandboxProject(tb testing.TB) (*project, string) {
	tb.Helper()
	p := newProject(tb, "[[twins]]\nname = \"stripe\"\n\n[[twins]]\nname = \"github\"\n\n[proxy]\n")
	if _, stderr, code := p.wraith(tb, "up"); code != 0 {
		tb.Fatalf("wraith up: exit %d: %s", code, stderr)
	}
	out, _, _ := p.wraith(tb, "env", "--format", "json")
	var doc envDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		tb.Fatalf("wraith env: %v: %s", err, out)
	}
	return p, doc.Twins["stripe"].URL
}

// journal is what the twin's journal holds of session: "METHOD PATH STATUS".
func journal(tb testing.TB, twinURL, session string) []string {
	tb.Helper()
	code, body := httpGet(tb, twinURL+"/__wraith/session/"+session+"/journal")
	if code != 200 {
		tb.Fatalf("journal of %s: %d %s", session, code, body)
	}
	var j struct {
		Entries []struct {
			Method string `json:"method"`
			Path   string `json:"path"`
			Status int    `json:"status"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(body, &j); err != nil {
		tb.Fatal(err)
	}
	var es []string
	for _, e := range j.Entries {
		es = append(es, fmt.Sprintf("%s %s %d", e.Method, e.Path, e.Status))
	}
	return es
}

// TestSandbox runs the egress sandbox's end-to-end checks against one
// running project (wraith up with the stripe twin and [proxy]), to keep
// the default test run short.
func TestSandbox(t *testing.T) {
	t.Parallel()
	p, twinURL := sandboxProject(t)
	t.Run("clients", func(t *testing.T) { testRunClients(t, p, twinURL) })
	t.Run("fails closed", func(t *testing.T) { testRunFailsClosed(t, p) })
	t.Run("sessions", func(t *testing.T) { testRunSessions(t, p) })
	t.Run("proxy fallback", func(t *testing.T) { testRunProxyFallback(t, p, twinURL) })
	t.Run("up proxy", func(t *testing.T) { testUpProxy(t, p, twinURL) })
	t.Run("git", func(t *testing.T) { testRunGit(t, p) })
}

// testRunGit: an unmodified git clones https://github.com/OWNER/REPO
// from the github twin, in the run's session: the repository the same
// session created through the REST API (curl to api.github.com, with
// auto_init), its README as committed there, and a push of a commit that
// the REST API then sees on its branch.
func testRunGit(t *testing.T, p *project) {
	needNamespaces(t)
	needProgram(t, "git")
	needProgram(t, "curl")
	clone := filepath.Join(t.TempDir(), "clone")
	script := `set -e
curl -sS -o /dev/null -w 'create: %{http_code}\n' -X POST -H 'Content-Type: application/json' \
  -d '{"name":"sandboxed","auto_init":true}' https://api.github.com/user/repos
git clone -q https://github.com/wraith-user/sandboxed "$1"
cat "$1/README.md"; echo
cd "$1"
git -c user.name=agent -c user.email=agent@example.com checkout -q -b feature
echo hello > hello.txt
git add hello.txt
git -c user.name=agent -c user.email=agent@example.com commit -q -m "add hello"
git push -q origin feature
curl -sS -D - -o /dev/null https://github.com/wraith-user/sandboxed/info/refs?service=git-upload-pack | grep -i '^x-wraith-provenance'
curl -sS https://api.github.com/repos/wraith-user/sandboxed/branches/feature`
	out, stderr, code := p.wraith(t, "run", "--session", "git", "--", "sh", "-c", script, "sh", clone)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, out, stderr)
	}
	for _, want := range []string{"create: 201", "# sandboxed", "x-wraith-provenance: handler", `"name":"feature"`} {
		if !strings.Contains(strings.ToLower(out), want) { // HTTP/2 writes header names in lower case
			t.Errorf("want %q in what the run printed:\n%s", want, out)
		}
	}
}

// testRunClients runs real clients, unmodified, under wraith run: each
// reaches the stripe twin at https://api.stripe.com in its own session,
// and the session's journal holds the call.
func testRunClients(t *testing.T, p *project, twinURL string) {
	needNamespaces(t)
	goclient := bins.Path(t, "./cmd/wraith/testdata/goclient")
	node := filepath.Join(moduleRootDir(t), "testdata", "node", "node_modules")
	tests := []struct {
		name string
		need string // the program the test needs
		argv []string
		want []string // in the client's output
	}{
		{"curl", "curl", []string{"curl", "-sS", "-i", "https://api.stripe.com/v1/customers", "-u", "sk_test_curl:", "-d", "email=curl@example.com"},
			[]string{"HTTP/2 200", "x-wraith-session: run-curl", "x-wraith-provenance: handler", `"email":"curl@example.com"`}},
		{"python3-requests", "/usr/bin/python3", []string{"/usr/bin/python3", "-c", `import requests
r = requests.post("https://api.stripe.com/v1/customers", data={"email": "py@example.com"}, auth=("sk_test_py", ""))
print(r.status_code, r.headers["X-Wraith-Session"], r.headers["X-Wraith-Provenance"], r.json()["email"])`},
			[]string{"200 run-python3-requests handler py@example.com"}},
		{"go net/http", goclient, []string{goclient, "go@example.com"},
			[]string{"200 HTTP/2.0 run-go-nethttp handler", `"email":"go@example.com"`}},
		{"stripe-node", "node", []string{"node", "-e", `const stripe = require("stripe")("sk_test_node", {maxNetworkRetries: 0, telemetry: false});
stripe.customers.create({email: "node@example.com"}).then((c) => {
  const h = c.lastResponse.headers;
  console.log(c.lastResponse.statusCode, h["x-wraith-session"], h["x-wraith-provenance"], c.email);
}, (e) => { console.error(e); process.exit(1); });`},
			[]string{"200 run-stripe-node handler node@example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			needProgram(t, tt.need)
			if tt.name == "stripe-node" {
				if _, err := os.Stat(filepath.Join(node, "stripe")); err != nil {
					if os.Getenv("CI") == "true" {
						t.Fatalf("CI=true: stripe-node is not installed: %v", err)
					}
					t.Skipf("stripe-node is not installed (make node-clients): %v", err)
				}
			}
			session := "run-" + strings.NewReplacer(" ", "-", "/", "").Replace(tt.name)
			pp := *p
			pp.env = append(append([]string{}, p.env...), "NODE_PATH="+node)
			out, stderr, code := pp.wraith(t, append([]string{"run", "--session", session, "--"}, tt.argv...)...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("want %q in the output:\n%s", w, out)
				}
			}
			if want, have := []string{"POST /v1/customers 200"}, journal(t, twinURL, session); strings.Join(want, ",") != strings.Join(have, ",") {
				t.Errorf("journal of %s: want %q, have %q", session, want, have)
			}
		})
	}
}

func moduleRootDir(tb testing.TB) string {
	tb.Helper()
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd)) // cmd/wraith
}

// internet is a loopback listener standing in for the world outside; it
// tells, without waiting, whether anything connected to it.
func internet(tb testing.TB) (port int, received func() bool) {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	return l.Addr().(*net.TCPAddr).Port, func() bool {
		l.(*net.TCPListener).SetDeadline(time.Now())
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
		return err == nil
	}
}

// testRunFailsClosed: under wraith run, a connection to anything but the
// twins fails at the connection, and reaches nothing. One run tries every
// case and prints curl's exit status for each.
func testRunFailsClosed(t *testing.T, p *project) {
	needNamespaces(t)
	needProgram(t, "curl")
	port, received := internet(t)
	tests := []struct {
		name string
		url  string
		exit int // curl's: 6 could not resolve, 7 could not connect, 35 TLS refused, 56 reset
	}{
		{"a name that resolves to the host's loopback", fmt.Sprintf("http://localhost:%d/", port), 7},
		{"the host's loopback by address", fmt.Sprintf("http://127.0.0.1:%d/", port), 7},
		{"a provider's other host", "https://uploads.stripe.com/", 6},
		{"an address outside", "https://192.0.2.1/", 7},
		{"a name forced onto the sandbox", "https://example.com/ --resolve example.com:443:127.0.0.1", 35},
		{"plain HTTP to the sandbox for another name", "http://example.org/ --resolve example.org:80:127.0.0.1", 56},
	}
	var script strings.Builder
	for _, tt := range tests {
		fmt.Fprintf(&script, "curl -sS --max-time 20 %s 2>/dev/null; echo $?\n", tt.url)
	}
	out, stderr, code := p.wraith(t, "run", "--session", "closed", "--", "sh", "-c", script.String())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	have := strings.Fields(out)
	if len(have) != len(tests) {
		t.Fatalf("want %d exit statuses and nothing else, have %q", len(tests), out)
	}
	for i, tt := range tests {
		if want := fmt.Sprint(tt.exit); have[i] != want {
			t.Errorf("%s (%s): want curl's exit %s, have %s", tt.name, tt.url, want, have[i])
		}
	}
	if received() {
		t.Error("the internet received a connection")
	}
	misses, err := os.ReadFile(filepath.Join(p.dir, missesFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{`"host":"uploads.stripe.com","via":"dns"`, `"host":"example.com","port":443,"via":"tls"`, `"host":"example.org","port":80,"via":"http"`} {
		if !strings.Contains(string(misses), `"session":"closed",`+m) {
			t.Errorf("want a miss %s in session closed:\n%s", m, misses)
		}
	}
}

// testRunSessions: two wraith run children at once, in two sessions, each
// see only their own world.
func testRunSessions(t *testing.T, p *project) {
	needNamespaces(t)
	needProgram(t, "curl")
	script := `curl -sS -u sk_test_x: -d email=$WRAITH_SESSION@example.com https://api.stripe.com/v1/customers >/dev/null &&
curl -sS -u sk_test_x: https://api.stripe.com/v1/customers`
	sessions := []string{"left", "right"}
	outs := make([]string, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, stderr, code := p.wraith(t, "run", "--session", s, "--", "sh", "-c", script)
			if code != 0 {
				t.Errorf("%s: exit %d: %s", s, code, stderr)
			}
			outs[i] = out
		}()
	}
	wg.Wait()
	for i, s := range sessions {
		var list struct {
			Data []struct {
				Email string `json:"email"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(outs[i]), &list); err != nil {
			t.Fatalf("%s: %v: %s", s, err, outs[i])
		}
		if len(list.Data) != 1 || list.Data[0].Email != s+"@example.com" {
			t.Errorf("%s: want only %s@example.com, have %+v", s, s, list.Data)
		}
	}
}

// TestRunOwnTwins: without a project, wraith run starts the --twin twins
// for the run, exits with the command's status, passes a signal on, and
// leaves nothing running.
func TestRunOwnTwins(t *testing.T) {
	t.Parallel()
	needNamespaces(t)
	p := newProject(t, "")
	os.Remove(filepath.Join(p.dir, "wraith-project.toml"))
	t.Run("exit status", func(t *testing.T) {
		_, stderr, code := p.wraith(t, "run", "--twin", "stripe", "--", "sh", "-c", "exit 7")
		if code != 7 {
			t.Errorf("want exit 7, have %d: %s", code, stderr)
		}
	})
	t.Run("a signal is passed on", func(t *testing.T) {
		// A command with a handler and no children of its own (a shell's
		// background sleep would be a grandchild, which a killed command
		// leaves behind: docs/sandbox.md).
		cmd := exec.Command(p.bin, "run", "--twin", "stripe", "--", "python3", "-c",
			`import signal, sys; signal.signal(signal.SIGTERM, lambda *a: sys.exit(42)); print("ready", flush=True); signal.pause()`)
		cmd.Dir, cmd.Env, cmd.Stderr = p.dir, p.env, p.logs
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		if line != "ready\n" {
			cmd.Process.Kill()
			t.Fatalf("want ready, have %q", line)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		// Bounded: a signal that never reached the command would leave it
		// sleeping.
		timer := time.AfterFunc(30*time.Second, func() {
			t.Error("the command did not exit within 30 s of SIGTERM to wraith run")
			cmd.Process.Kill()
		})
		defer timer.Stop()
		cmd.WaitDelay = time.Second
		err = cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 42 {
			t.Errorf("want the command's exit 42, have %d (%v)", code, err)
		}
	})
	t.Run("the command dies with a killed wraith run", func(t *testing.T) {
		cmd := exec.Command(p.bin, "run", "--twin", "stripe", "--", "sh", "-c", "echo ready; exec sleep 1000")
		cmd.Dir, cmd.Env, cmd.Stderr = p.dir, p.env, p.logs
		// A command that outlived wraith run would hold its stderr open.
		cmd.WaitDelay = time.Second
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
			t.Errorf("want ready, have %q", line)
		}
		cmd.Process.Kill()
		cmd.Wait()
	})
	testbin.WaitUntil(t, 10*time.Second, "the run's command and twins to stop", func() bool { return len(p.pids(t)) == 0 })
}

// testRunProxyFallback: --isolation proxy routes through proxy variables,
// and says what it cannot enforce.
func testRunProxyFallback(t *testing.T, p *project, twinURL string) {
	needProgram(t, "curl")
	out, stderr, code := p.wraith(t, "run", "--isolation", "proxy", "--session", "fallback", "--",
		"curl", "-sS", "-i", "-u", "sk_test_x:", "https://api.stripe.com/v1/customers")
	if code != 0 || !strings.Contains(out, "x-wraith-session: fallback") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, stderr)
	}
	if !strings.Contains(stderr, "nothing here can stop it") {
		t.Errorf("want the warning of what the proxy cannot enforce, have %q", stderr)
	}
	if want, have := "GET /v1/customers 200", strings.Join(journal(t, twinURL, "fallback"), ","); want != have {
		t.Errorf("journal: want %q, have %q", want, have)
	}
}

// testUpProxy: [proxy] under wraith up; wraith env gives the variables,
// and curl with only those reaches the twin in the named session, while a
// CONNECT to another host is refused and dials nothing.
func testUpProxy(t *testing.T, p *project, twinURL string) {
	needProgram(t, "curl")
	out, _, code := p.wraith(t, "env", "--format", "dotenv", "--session", "agent-5")
	if code != 0 {
		t.Fatalf("wraith env: exit %d", code)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(line, "=")
		vars[k] = v
	}
	for _, k := range []string{"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"} {
		if vars[k] == "" {
			t.Errorf("wraith env gives no %s:\n%s", k, out)
		}
	}
	if !strings.HasPrefix(vars["HTTPS_PROXY"], "http://agent-5:x@127.0.0.1:") {
		t.Errorf("HTTPS_PROXY: want the session as its credential, have %q", vars["HTTPS_PROXY"])
	}
	curl := func(args ...string) (string, int) {
		cmd := exec.Command("curl", append([]string{"-sS", "--max-time", "20"}, args...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		for k, v := range vars {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		b, _ := cmd.CombinedOutput()
		return string(b), cmd.ProcessState.ExitCode()
	}
	if out, code := curl("-i", "-u", "sk_test_x:", "https://api.stripe.com/v1/customers"); code != 0 || !strings.Contains(out, "x-wraith-session: agent-5") {
		t.Errorf("curl through the proxy: exit %d: %s", code, out)
	}
	if want, have := "GET /v1/customers 200", strings.Join(journal(t, twinURL, "agent-5"), ","); want != have {
		t.Errorf("journal: want %q, have %q", want, have)
	}
	port, received := internet(t)
	// --noproxy '': NO_PROXY keeps loopback direct, for the twins' own URLs.
	out, code = curl("--noproxy", "", fmt.Sprintf("https://127.0.0.1:%d/", port))
	if code != 56 || !strings.Contains(out, "403") { // 56: CONNECT refused
		t.Errorf("want curl's exit 56 for a refused CONNECT, have %d: %s", code, out)
	}
	if received() {
		t.Error("the internet received a connection")
	}
}
