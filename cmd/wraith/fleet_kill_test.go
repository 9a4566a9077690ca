package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
)

// The phases of a kill, as the agents see them: a request is labelled
// with the phase it was sent in and the phase its answer came back in.
// Kill number k runs through k*phases + phase, so that a request sent
// during one kill and answered during the next is told apart.
const (
	phaseUp         = iota // every replica serves
	phaseDown              // the victim was SIGKILLed and has exited
	phaseRestarting        // the victim is starting again: it may answer before it says it is ready
	phaseRestored          // the victim serves again, on its state folder
	phases
)

// killOutcome is one request of an agent under the kill.
type killOutcome struct {
	sent, answered int32
	method         string
	status         int
	code           string // Wraith's error code, for an error
	err            string // a failure of the agent's own checks
}

// killAgent is one agent: a session, the replica nginx hashes it to, the
// writes it was answered for and everything it saw.
type killAgent struct {
	session string
	owner   int

	mu       sync.Mutex
	acked    map[string]string // customer id -> description, as answered
	order    []string
	outcomes []killOutcome
}

func (a *killAgent) record(o killOutcome) {
	a.mu.Lock()
	a.outcomes = append(a.outcomes, o)
	a.mu.Unlock()
}

// count returns how many of a's outcomes match.
func (a *killAgent) count(match func(killOutcome) bool) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, o := range a.outcomes {
		if match(o) {
			n++
		}
	}
	return n
}

// step is one write and one read of an earlier acknowledged write,
// through the proxy.
func (a *killAgent) step(c *http.Client, proxy string, phase *atomic.Int32, k int) {
	desc := fmt.Sprintf("%s-%d", a.session, k)
	sent := phase.Load()
	status, body, err := killCall(c, http.MethodPost, proxy+"/v1/customers", a.session, "description="+url.QueryEscape(desc))
	o := killOutcome{sent: sent, answered: phase.Load(), method: http.MethodPost, status: status, code: errorCode(body)}
	var created struct{ ID, Description string }
	switch {
	case err != nil:
		o.err = err.Error()
	case status == http.StatusOK:
		if json.Unmarshal(body, &created) != nil || created.ID == "" || created.Description != desc {
			o.err = "a 200 to a create that is not the customer created: " + string(body)
		} else {
			a.mu.Lock()
			a.acked[created.ID] = desc
			a.order = append(a.order, created.ID)
			a.mu.Unlock()
		}
	}
	a.record(o)

	a.mu.Lock()
	if len(a.order) == 0 {
		a.mu.Unlock()
		return
	}
	id := a.order[k%len(a.order)]
	want := a.acked[id]
	a.mu.Unlock()
	sent = phase.Load()
	status, body, err = killCall(c, http.MethodGet, proxy+"/v1/customers/"+id, a.session, "")
	o = killOutcome{sent: sent, answered: phase.Load(), method: http.MethodGet, status: status, code: errorCode(body)}
	var read struct{ ID, Description string }
	switch {
	case err != nil:
		o.err = err.Error()
	case status/100 == 2 && (json.Unmarshal(body, &read) != nil || read.ID != id || read.Description != want):
		o.err = fmt.Sprintf("a %d for %s that is not the customer this session was answered for (%q): %s", status, id, want, body)
	case status == http.StatusNotFound:
		o.err = fmt.Sprintf("404 for %s, which this session created and was answered for: another world answered", id)
	}
	a.record(o)
}

func killCall(c *http.Client, method, target, session, form string) (int, []byte, error) {
	var body io.Reader
	if form != "" {
		body = strings.NewReader(form)
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-Wraith-Session", session)
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func errorCode(body []byte) string {
	var doc struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(body, &doc)
	return doc.Error.Code
}

// TestNginxFleetKill SIGKILLs a replica of three, each on a state folder
// and under --require-provisioned, behind nginx with
// deploy/nginx/wraith-fleet.conf, while 64 agents write and read back
// through it. The agents of the other replicas see nothing but 200s from
// their own worlds; the victim's agents see 502 replica-unavailable while
// it is down, never a 2xx from another replica; once it is back on its
// state folder they see their own worlds again, with every write they were
// answered for. WRAITH_FLEET_KILLS (make soak) kills more times, a replica
// after another.
func TestNginxFleetKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts nginx and three replicas; skipped with -short")
	}
	kills := 1
	if v := os.Getenv("WRAITH_FLEET_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("WRAITH_FLEET_KILLS=%q: want a whole number of kills, 1 or more", v)
		}
		kills = n
	}
	bin := needNginx(t)
	serveArgs := func(dir string, port int) []string {
		return []string{"checkout", "--seed", "42", "--clock", "deterministic", "--clock-epoch", "1700000000",
			"--require-provisioned", "--state-dir", dir, "--port", strconv.Itoa(port)}
	}
	type replica struct {
		dir  string
		port int
		proc *serveProc
	}
	replicas := make([]*replica, 3)
	var urls []string
	for i := range replicas {
		r := &replica{dir: t.TempDir(), port: freePort(t)}
		r.proc = startServe(t, serveArgs(r.dir, r.port)...)
		replicas[i] = r
		urls = append(urls, r.proc.ready.Serve.URL)
	}
	proxy := startNginx(t, bin, urls)
	setup := time.Now()

	const agents = 64
	all := make([]*killAgent, agents)
	for i := range all {
		a := &killAgent{session: fmt.Sprintf("kill-agent-%02d", i), acked: map[string]string{}}
		if status, _, body := fleetCall(t, http.MethodPost, proxy.URL+"/__wraith/session/"+a.session, "", "", `{"seed":7}`); status != http.StatusCreated {
			t.Fatalf("provision %s through nginx: want 201, have %d %s", a.session, status, body)
		}
		all[i] = a
	}
	where, _ := replicaSessions(t, urls)
	for _, a := range all {
		if len(where[a.session]) != 1 {
			t.Fatalf("session %s: want it on one replica, have %v", a.session, where[a.session])
		}
		a.owner = where[a.session][0]
	}

	var phase atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: agents}}
	for _, a := range all {
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				a.step(client, proxy.URL, &phase, k)
			}
		})
	}
	stopped := false
	stopAgents := func() {
		if !stopped {
			stopped = true
			close(stop)
			wg.Wait()
			client.CloseIdleConnections()
		}
	}
	defer stopAgents()
	each := func(what string, agents func(*killAgent) bool, cond func(*killAgent) bool) {
		t.Helper()
		testbin.WaitUntil(t, 60*time.Second, what, func() bool {
			for _, a := range all {
				if agents(a) && !cond(a) {
					return false
				}
			}
			return true
		})
	}
	every := func(*killAgent) bool { return true }
	start := time.Now()
	timeline := []string{fmt.Sprintf("provisioned in %.2fs", start.Sub(setup).Seconds())}
	mark := func(what string) {
		timeline = append(timeline, fmt.Sprintf("%s at %.2fs", what, time.Since(start).Seconds()))
	}
	okIn := func(p int32) func(killOutcome) bool {
		return func(o killOutcome) bool { return o.sent == p && o.answered == p && o.status/100 == 2 && o.err == "" }
	}
	for round := range kills {
		base := int32(round * phases)
		phase.Store(base + phaseUp)
		each("every agent answered three times", every, func(a *killAgent) bool { return a.count(okIn(base+phaseUp)) >= 3 })
		victim := round % len(replicas)
		v := replicas[victim]
		onVictim := func(a *killAgent) bool { return a.owner == victim }
		elsewhere := func(a *killAgent) bool { return a.owner != victim }
		mark("kill")
		v.proc.cmd.Process.Kill() // SIGKILL
		<-v.proc.exited
		phase.Store(base + phaseDown)
		each("every agent of the killed replica refused twice while it is down", onVictim, func(a *killAgent) bool {
			return a.count(func(o killOutcome) bool { return o.sent == base+phaseDown && o.answered == base+phaseDown }) >= 2
		})
		each("every other agent answered twice while it is down", elsewhere, func(a *killAgent) bool { return a.count(okIn(base+phaseDown)) >= 2 })

		mark("restart")
		phase.Store(base + phaseRestarting)
		v.proc = startServe(t, serveArgs(v.dir, v.port)...)
		phase.Store(base + phaseRestored)
		mark("ready")
		each("every agent of the restarted replica answered twice", onVictim, func(a *killAgent) bool { return a.count(okIn(base+phaseRestored)) >= 2 })

		// Judge what was answered during this kill. A request still in
		// flight is judged with the next kill, or not at all.
		for _, a := range all {
			a.mu.Lock()
			var outs []killOutcome
			for _, o := range a.outcomes {
				if o.answered >= base && o.answered < base+phases {
					outs = append(outs, o)
				}
			}
			a.mu.Unlock()
			checkKillOutcomes(t, a, outs, a.owner == victim, base)
		}
		if t.Failed() {
			if log, err := os.ReadFile(filepath.Join(proxy.dir, "error.log")); err == nil {
				t.Logf("nginx's error log, last lines:\n%s", lastLines(string(log), 5))
			}
			break
		}
	}
	stopAgents()
	mark("stopped")

	// Every write an agent was answered for is in its world, the killed
	// replicas' agents' included.
	var acked atomic.Int64
	var readers sync.WaitGroup
	for _, a := range all {
		readers.Go(func() {
			for id, desc := range a.acked {
				status, body, err := killCall(client, http.MethodGet, proxy.URL+"/v1/customers/"+id, a.session, "")
				var c struct{ Description string }
				json.Unmarshal(body, &c)
				if err != nil || status != http.StatusOK || c.Description != desc {
					t.Errorf("%s (replica %d): customer %s, answered %q when created: now %d %s %v", a.session, a.owner, id, desc, status, body, err)
				}
				acked.Add(1)
			}
		})
	}
	readers.Wait()
	client.CloseIdleConnections()
	mark("read back")
	t.Logf("%d kill(s); %d acknowledged writes read back after the last", kills, acked.Load())
	t.Logf("timeline: %s", strings.Join(timeline, ", "))
}

// checkKillOutcomes judges one agent's outcomes over the kill whose
// phases start at base.
func checkKillOutcomes(t *testing.T, a *killAgent, outs []killOutcome, onVictim bool, base int32) {
	t.Helper()
	var refused, served, failures int
	errorf := func(format string, args ...any) {
		t.Helper()
		// A broken proxy fails every request: a few per agent say it.
		if failures++; failures <= 3 {
			t.Errorf(format, args...)
		}
	}
	for _, o := range outs {
		// This kill's phases; a request sent during the last kill has a
		// negative phase and is judged as straddling a change.
		o.sent, o.answered = o.sent-base, o.answered-base
		if o.err != "" {
			errorf("%s (replica %d): %s %s (sent in phase %d, answered in %d)", a.session, a.owner, o.method, o.err, o.sent, o.answered)
			continue
		}
		switch {
		case !onVictim:
			// Another replica's death is none of this agent's business.
			if o.status/100 != 2 {
				errorf("%s (replica %d, not killed): %s answered %d %s", a.session, a.owner, o.method, o.status, o.code)
			}
		case o.sent == phaseDown && o.answered == phaseDown:
			// Down: the proxy's own error, never an answer from elsewhere.
			if o.status != http.StatusBadGateway || o.code != "replica-unavailable" {
				errorf("%s (killed replica %d, down): %s answered %d %q, want 502 replica-unavailable", a.session, a.owner, o.method, o.status, o.code)
			}
			refused++
		case o.sent == phaseRestored:
			// Back on its state folder: its own world, which the read
			// checks in step verify.
			if o.status/100 != 2 {
				errorf("%s (killed replica %d, restored): %s answered %d %q, want its own world back", a.session, a.owner, o.method, o.status, o.code)
			}
			served++
		default:
			// Straddling the kill, or while the victim starts again:
			// served before the kill, refused by the proxy, or served
			// once the new process listens.
			if o.status/100 != 2 && !(o.status == http.StatusBadGateway && o.code == "replica-unavailable") {
				errorf("%s (killed replica %d): %s across a phase change answered %d %q", a.session, a.owner, o.method, o.status, o.code)
			}
		}
	}
	if onVictim && (refused == 0 || served == 0) {
		t.Errorf("%s (killed replica %d): %d refusals while down, %d answers after the restart: want some of each", a.session, a.owner, refused, served)
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
