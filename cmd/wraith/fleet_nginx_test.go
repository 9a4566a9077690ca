package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
)

// nginxBin is where Debian's nginx package puts the binary.
const nginxBin = "/usr/sbin/nginx"

// needNginx returns nginx's path, installing it with `make nginx` (Debian's
// package, as root) when it is missing, and skips the test only when that
// cannot work.
func needNginx(tb testing.TB) string {
	tb.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat(nginxBin); err == nil {
		return nginxBin
	}
	if _, err := exec.LookPath("make"); err != nil {
		tb.Skip("nginx is not installed and make is missing, so `make nginx` cannot install it: apt-get install nginx, then run the test again")
	}
	cmd := exec.Command("make", "--no-print-directory", "nginx")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("make nginx: %v\n%s", err, out)
	}
	if _, err := os.Stat(nginxBin); err != nil {
		tb.Skipf("nginx is not installed and `make nginx` could not install it (it needs root, apt-get and Debian's archive):\n%s", out)
	}
	return nginxBin
}

// nginxProc is a real nginx in the foreground with everything in one
// temporary folder.
type nginxProc struct {
	URL    string
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
}

// fleetConfig is deploy/nginx/wraith-fleet.conf, the documented file, with
// its example replicas (their parameters kept) and listen address replaced.
func fleetConfig(tb testing.TB, listen string, replicas []string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "nginx", "wraith-fleet.conf"))
	if err != nil {
		tb.Fatal(err)
	}
	conf := string(b)
	servers := regexp.MustCompile(`(?m)^\s*server 127\.0\.0\.1:808[1-3]((?: [a-z_]+=?[0-9a-z]*)*);\n`)
	found := servers.FindAllStringSubmatch(conf, -1)
	if len(found) != 3 {
		tb.Fatalf("deploy/nginx/wraith-fleet.conf: want 3 example `server 127.0.0.1:808N ...;` lines to replace, have %d", len(found))
	}
	params := found[0][1]
	var lines strings.Builder
	for _, r := range replicas {
		fmt.Fprintf(&lines, "    server %s%s;\n", strings.TrimPrefix(r, "http://"), params)
	}
	first := true
	conf = servers.ReplaceAllStringFunc(conf, func(string) string {
		if first {
			first = false
			return lines.String()
		}
		return ""
	})
	if !strings.Contains(conf, "listen 127.0.0.1:8080;") {
		tb.Fatal("deploy/nginx/wraith-fleet.conf: want a `listen 127.0.0.1:8080;` line to replace")
	}
	return strings.Replace(conf, "listen 127.0.0.1:8080;", "listen "+listen+";", 1)
}

// mainSettings are the worker and events settings of
// deploy/nginx/nginx.conf, the documented main configuration, so that the
// test runs nginx sized as the project tells users to size it.
func mainSettings(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "nginx", "nginx.conf"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, re := range []string{`(?m)^worker_processes [^;]+;`, `(?m)^worker_rlimit_nofile [^;]+;`, `(?ms)^events \{.*?^\}`} {
		m := regexp.MustCompile(re).FindString(string(b))
		if m == "" {
			tb.Fatalf("deploy/nginx/nginx.conf: no %s", re)
		}
		out = append(out, m)
	}
	return strings.Join(out, "\n")
}

// startNginx runs nginx with the fleet configuration in front of replicas,
// on a free loopback port, until the test ends; it checks no nginx process is left.
func startNginx(tb testing.TB, bin string, replicas []string) *nginxProc {
	tb.Helper()
	dir := tb.TempDir()
	tag := fmt.Sprintf("WRAITH_FLEET_TEST=%d-%d", os.Getpid(), time.Now().UnixNano())
	tb.Cleanup(func() {
		// Runs last: nginx and its workers are all gone.
		if pids := testbin.Tagged(tb, "WRAITH_FLEET_TEST", strings.TrimPrefix(tag, "WRAITH_FLEET_TEST=")); len(pids) > 0 {
			tb.Errorf("nginx processes left behind: %v", pids)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nginx binds it next; another process taking it first fails the start loudly
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // workers write temp files in this root-owned folder
	}
	main := fmt.Sprintf(`%s
daemon off;
%[3]s
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
http {
    access_log off;
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    include %[2]s/wraith-fleet.conf;
}
`, user, dir, mainSettings(tb))
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "wraith-fleet.conf"), []byte(fleetConfig(tb, addr, replicas)), 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"))
	cmd.Env = append(testbin.Env(), tag)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr := &testbin.Buffer{}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	p := &nginxProc{URL: "http://" + addr, dir: dir, cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(p.exited) }()
	tb.Cleanup(func() {
		// SIGQUIT: finish requests, stop the workers, exit.
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-p.exited
			tb.Errorf("nginx did not stop within 10 s of SIGQUIT")
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/__wraith/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		select {
		case <-p.exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			tb.Fatalf("nginx exited: %s\n%s", stderr, log)
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("nginx did not answer on %s within 10 s: %v", p.URL, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fleetCall sends one request through base and returns the status and the
// body. auth, when set, is the Authorization header.
func fleetCall(tb testing.TB, method, url, session, auth, body string) (int, http.Header, []byte) {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if session != "" {
		req.Header.Set("X-Wraith-Session", session)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if strings.HasPrefix(body, "{") {
		req.Header.Set("Content-Type", "application/json")
	} else if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// replicaSessions lists each replica's sessions, asked directly: session
// name -> the replicas holding it, and each replica's total requests.
func replicaSessions(tb testing.TB, replicas []string) (map[string][]int, []uint64) {
	tb.Helper()
	where := map[string][]int{}
	totals := make([]uint64, len(replicas))
	for i, r := range replicas {
		status, _, body := fleetCall(tb, http.MethodGet, r+"/__wraith/session", "", "", "")
		var doc struct {
			Sessions []struct {
				Session  string `json:"session"`
				Requests uint64 `json:"requests"`
			} `json:"sessions"`
		}
		if status != http.StatusOK || json.Unmarshal(body, &doc) != nil {
			tb.Fatalf("GET %s/__wraith/session: %d %s", r, status, body)
		}
		for _, s := range doc.Sessions {
			where[s.Session] = append(where[s.Session], i)
			totals[i] += s.Requests
		}
	}
	return where, totals
}

// TestNginxFleet runs three `wraith serve` replicas behind a real nginx
// configured with deploy/nginx/wraith-fleet.conf, and shows that every
// session lives on exactly one replica whichever way the session is
// named, that control calls reach it through the proxy, and that
// `wraith fleet sessions` finds every session.
func TestNginxFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nginx and three replicas; skipped with -short")
	}
	bin := needNginx(t)
	var replicas []string
	for range 3 {
		replicas = append(replicas, startServe(t, "checkout", "--seed", "42", "--clock", "deterministic", "--clock-epoch", "1700000000").ready.Serve.URL)
	}
	proxy := startNginx(t, bin, replicas)

	const sessions = 64
	name := func(i int) string { return fmt.Sprintf("agent-%02d", i) }
	for i := range sessions {
		s := name(i)
		// Provisioning by path, so the proxy can route it.
		if status, _, body := fleetCall(t, http.MethodPost, proxy.URL+"/__wraith/session/"+s, "", "", `{"seed":7,"fixture":"baseline"}`); status != http.StatusCreated {
			t.Fatalf("provision %s through nginx: want 201, have %d %s", s, status, body)
		}
		status, h, body := fleetCall(t, http.MethodPost, proxy.URL+"/v1/customers", s, "", "description="+s)
		if status != http.StatusOK || h.Get("X-Wraith-Session") != s {
			t.Fatalf("create a customer in %s through nginx: %d %s", s, status, body)
		}
		if have := h.Get("X-Wraith-Routed-Session"); have != s {
			t.Errorf("nginx routed %s by %q", s, have)
		}
		if status, _, _ := fleetCall(t, http.MethodGet, proxy.URL+"/v1/customers/cus_123", s, "", ""); status != http.StatusOK {
			t.Errorf("GET cus_123 in %s through nginx: %d", s, status)
		}
	}

	where, _ := replicaSessions(t, replicas)
	perReplica := make([]int, len(replicas))
	owner := map[string]int{}
	for i := range sessions {
		on := where[name(i)]
		if len(on) != 1 {
			t.Errorf("session %s: want it on exactly one replica, have it on %v", name(i), on)
			continue
		}
		owner[name(i)] = on[0]
		perReplica[on[0]]++
	}
	t.Logf("sessions per replica: %v", perReplica)
	for i, n := range perReplica {
		if n == 0 {
			t.Errorf("replica %s holds none of %d sessions: the hash does not spread them", replicas[i], sessions)
		}
	}

	// Reset by control path lands on the owner: anywhere else it is 404.
	for i := range sessions {
		if status, _, body := fleetCall(t, http.MethodPost, proxy.URL+"/__wraith/session/"+name(i)+"/reset", "", "", ""); status != http.StatusOK {
			t.Errorf("reset %s through nginx: want 200, have %d %s", name(i), status, body)
		}
	}

	// The other ways to name a session route to the same replica. Where
	// the twin does not read that source yet, the request is in its
	// default session, but on the owner's replica all the same: count
	// every replica's requests before and after.
	basic := func(s string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte("sk_test_x.wraith."+s+":"))
	}
	forms := []struct {
		name string
		send func(s string)
	}{
		{"path prefix", func(s string) { fleetCall(t, http.MethodGet, proxy.URL+"/__s/"+s+"/v1/customers/cus_123", "", "", "") }},
		{"bearer credential", func(s string) {
			fleetCall(t, http.MethodGet, proxy.URL+"/v1/customers/cus_123", "", "Bearer sk_test_x.wraith."+s, "")
		}},
		{"basic credential", func(s string) { fleetCall(t, http.MethodGet, proxy.URL+"/v1/customers/cus_123", "", basic(s), "") }},
	}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			for i := 0; i < sessions; i += 8 {
				s := name(i)
				_, before := replicaSessions(t, replicas)
				form.send(s)
				_, after := replicaSessions(t, replicas)
				for r := range replicas {
					want := before[r]
					if r == owner[s] {
						want++
					}
					if after[r] != want {
						t.Errorf("%s: a request for %s (owned by replica %d) changed replica %d's requests from %d to %d", form.name, s, owner[s], r, before[r], after[r])
					}
				}
			}
		})
	}

	// No session at all: the default session, on one replica.
	fleetCall(t, http.MethodGet, proxy.URL+"/v1/customers/cus_123", "", "", "")
	fleetCall(t, http.MethodGet, proxy.URL+"/v1/customers/cus_123", "", "", "")
	if where, _ := replicaSessions(t, replicas); len(where["default"]) != 1 {
		t.Errorf("session default: want it on one replica, have it on %v", where["default"])
	}

	// Fork in a fleet: wraith fleet fork makes each new session on the
	// replica its name hashes to, as a copy of the source.
	t.Run("fleet fork", func(t *testing.T) { checkFleetFork(t, proxy.URL, replicas, name(0), owner[name(0)]) })

	// Every way of naming a session, as the twin reads it: nginx must hash
	// the session the twin serves. The sessions this makes are counted
	// below: each must be on one replica only.
	t.Run("session sources", func(t *testing.T) { checkSourceCases(t, proxy.URL, true) })

	// wraith fleet sessions, as a real process.
	out, err := exec.Command(bins.Path(t, "./cmd/wraith"), "fleet", "sessions", "--format", "json", "--replicas", strings.Join(replicas, ",")).Output()
	if err != nil {
		t.Fatalf("wraith fleet sessions: %v\n%s", err, out)
	}
	var doc fleetSessions
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("wraith fleet sessions --format json: %v\n%s", err, out)
	}
	listed := map[string]string{}
	for _, s := range doc.Sessions {
		n, _ := s["session"].(string)
		listed[n], _ = s["replica"].(string)
	}
	for i := range sessions {
		if have, want := listed[name(i)], replicas[owner[name(i)]]; have != want {
			t.Errorf("wraith fleet sessions lists %s on %q, want %q", name(i), have, want)
		}
	}
	if len(doc.Duplicates) > 0 {
		t.Errorf("wraith fleet sessions reports sessions on several replicas: %v", doc.Duplicates)
	}
	text, err := exec.Command(bins.Path(t, "./cmd/wraith"), "fleet", "sessions", "--replicas", strings.Join(replicas, ",")).Output()
	if err != nil || !strings.Contains(string(text), "on 3 replicas") {
		t.Errorf("wraith fleet sessions (text): %v\n%s", err, text)
	}
	t.Logf("%d sessions listed across %d replicas", len(doc.Sessions), len(replicas))
}

// checkFleetFork forks src (which lives on replica srcOwner) through the
// proxy, with wraith fleet fork and, to show why that exists, with the
// control plane's own fork call.
func checkFleetFork(t *testing.T, proxy string, replicas []string, src string, srcOwner int) {
	const forks = 6
	fork := func(k int) string { return fmt.Sprintf("%s-fork-%d", src, k) }
	for k := range forks {
		out, err := exec.Command(bins.Path(t, "./cmd/wraith"), "fleet", "fork", src, fork(k), "--proxy", proxy, "--format", "json").Output()
		var doc fleetFork
		if err != nil || json.Unmarshal(out, &doc) != nil || doc.Session != fork(k) || doc.From != src || doc.Entities == 0 {
			t.Fatalf("wraith fleet fork %s %s: %v\n%s", src, fork(k), err, out)
		}
	}
	// The control plane's fork through the proxy is routed by the source:
	// the new session is made on the source's replica, wherever its own
	// name hashes (docs/fleet.md).
	if status, _, body := fleetCall(t, http.MethodPost, proxy+"/__wraith/session/"+src+"/fork", "", "", `{"session":"`+src+`-direct"}`); status != http.StatusCreated {
		t.Fatalf("POST fork through nginx: %d %s", status, body)
	}

	// The next answer is the same in the source and in every copy, and
	// each copy's requests reach the replica that holds it.
	_, _, want := fleetCall(t, http.MethodGet, proxy+"/v1/customers?limit=100", src, "", "")
	for k := range forks {
		status, h, have := fleetCall(t, http.MethodGet, proxy+"/v1/customers?limit=100", fork(k), "", "")
		if status != http.StatusOK || h.Get("X-Wraith-Session") != fork(k) || string(have) != string(want) {
			t.Errorf("GET /v1/customers in %s: want %s's answer, have %d %s", fork(k), src, status, have)
		}
	}
	where, _ := replicaSessions(t, replicas)
	elsewhere := 0
	for k := range forks {
		if len(where[fork(k)]) != 1 {
			t.Errorf("fork %s: want it on exactly one replica, have it on %v", fork(k), where[fork(k)])
		} else if where[fork(k)][0] != srcOwner {
			elsewhere++
		}
	}
	if on := where[src+"-direct"]; len(on) != 1 || on[0] != srcOwner {
		t.Errorf("a fork by POST /__wraith/session/%s/fork through nginx: want it on %s's replica %d, have it on %v", src, src, srcOwner, on)
	}
	t.Logf("%d of %d forks of %s live on another replica than %s", elsewhere, forks, src, src)
}
