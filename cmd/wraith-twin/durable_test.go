package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/ipc"
)

// TestKillRecovers runs wraith-twin on a state folder under agents that
// write through real connections, SIGKILLs it at random moments and
// starts it again on the folder each time. After every restart, every
// create an agent was answered for is there with the body it was answered
// with, a session holds no entity beyond those and the one create per
// agent that was in flight at the kill (whole, if at all), and the ids
// and clock go on from where they were. The default run is short (8
// agents, 3 kills); make soak runs 64 agents and 20 kills
// (WRAITH_KILL_AGENTS, WRAITH_KILL_ROUNDS). It runs twice: with the
// default checkpoint bound, which these writes never reach, and with a
// bound of 4 KiB, past which the journal is retired every few creates,
// so that the kills land while checkpoints are under way beside the
// commits (journal.old, state.db being written); it logs how many kills
// left a journal.old behind.
func TestKillRecovers(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"journal", nil},
		{"checkpoints", []string{"--state-checkpoint", "4KiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) { killRecovers(t, tc.args) })
	}
}

func killRecovers(t *testing.T, extra []string) {
	agents, rounds := envInt(t, "WRAITH_KILL_AGENTS", 8), envInt(t, "WRAITH_KILL_ROUNDS", 3)
	bin := bins.Path(t, "./cmd/wraith-twin")
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	midCheckpoint := 0
	as := make([]*writer, agents)
	for i := range as {
		as[i] = &writer{session: fmt.Sprintf("agent-%d", i), acked: map[string][]byte{}}
	}
	for round := 0; round <= rounds; round++ {
		p := startKillable(t, bin, append([]string{"checkout", "--state-dir", dir}, extra...)...)
		for _, a := range as {
			a.check(t, p.url, round)
		}
		if round == rounds {
			p.stop(t)
			break
		}
		// Write until the agents were answered for a random number of
		// creates, then kill the twin while they go on writing.
		var answered atomic.Int64
		target := int64(agents + rng.IntN(4*agents))
		var wg sync.WaitGroup
		for _, a := range as {
			wg.Go(func() { a.run(p.url, &answered) })
		}
		testbin.WaitUntil(t, 30*time.Second, fmt.Sprintf("%d answered creates", target), func() bool { return answered.Load() >= target })
		p.kill(t)
		wg.Wait()
		if _, err := os.Stat(filepath.Join(dir, "journal.old")); err == nil {
			midCheckpoint++
		}
	}
	t.Logf("%d of %d kills left a journal.old (a checkpoint under way)", midCheckpoint, rounds)
}

// writer is one agent: it creates customers in its session and keeps
// what it was answered.
type writer struct {
	session string
	client  http.Client
	acked   map[string][]byte // id → the body it was answered with
	order   []string          // acked ids, in the order they were answered
	doubt   int               // creates sent and never answered (the kill came first)
	fresh   int               // creates answered since the last check
	known   int               // the session's entities as last counted
	// The last answered create, sent with an Idempotency-Key: sent again
	// after a restart, it must be answered from the recovered cache.
	lastKey, lastForm string
	lastBody          []byte
}

// run creates customers until a request fails, as they do once the twin
// is killed.
func (a *writer) run(url string, answered *atomic.Int64) {
	for n := 0; ; n++ {
		form := fmt.Sprintf("name=%s-%d&metadata[n]=%d", a.session, len(a.order), n)
		key := fmt.Sprintf("%s-%d", a.session, len(a.order))
		resp, err := a.post(url, form, key)
		if err != nil {
			a.doubt++
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			a.doubt++
			return
		}
		var c struct{ ID string }
		json.Unmarshal(b, &c)
		a.acked[c.ID] = b
		a.order = append(a.order, c.ID)
		a.lastKey, a.lastForm, a.lastBody = key, form, b
		a.fresh++
		answered.Add(1)
	}
}

// check reads the session back after a restart.
func (a *writer) check(t *testing.T, url string, round int) {
	t.Helper()
	for _, id := range a.order {
		b, status := get(t, url+"/v1/customers/"+id, a.session)
		if status != http.StatusOK || !bytes.Equal(b, a.acked[id]) {
			t.Fatalf("round %d, %s: customer %s was answered for before the kill\nwant 200 %s\nhave %d %s", round, a.session, id, a.acked[id], status, b)
		}
	}
	if a.lastKey != "" {
		resp, err := a.post(url, a.lastForm, a.lastKey)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Equal(b, a.lastBody) || resp.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("round %d, %s: the last answered create sent again with its Idempotency-Key %s\nwant a replay of 200 %s\nhave %d (Idempotent-Replayed: %q) %s", round, a.session, a.lastKey, a.lastBody, resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), b)
		}
		a.lastKey = ""
	}
	if round == 0 {
		if b, status := get(t, url+"/__wraith/session/"+a.session+"/digest", ""); status != http.StatusNotFound {
			t.Fatalf("a new folder holds session %s: %d %s", a.session, status, b)
		}
	} else {
		// The session holds what it held at the last count, every create
		// answered since, and at most the creates in doubt, each whole.
		n := a.entities(t, url)
		if lo, hi := a.known+a.fresh, a.known+a.fresh+a.doubt; n < lo || n > hi {
			t.Fatalf("round %d, %s: want %d to %d entities (%d answered since the last count, %d in doubt), have %d", round, a.session, lo, hi, a.fresh, a.doubt, n)
		}
	}
	// The next id is a new one: the generator went on from where it was,
	// not from its seed.
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/customers", strings.NewReader("name=probe"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Wraith-Session", a.session)
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var c struct{ ID string }
	json.Unmarshal(b, &c)
	if _, seen := a.acked[c.ID]; seen || c.ID == "" {
		t.Fatalf("round %d, %s: the first create after the restart got id %q, which the session already handed out", round, a.session, c.ID)
	}
	a.acked[c.ID] = b
	a.order = append(a.order, c.ID)
	a.known, a.fresh, a.doubt = a.entities(t, url), 0, 0
}

// entities counts the session's entities, its starting world's included.
func (a *writer) entities(t *testing.T, url string) int {
	t.Helper()
	b, status := get(t, url+"/__wraith/session/"+a.session+"/digest", "")
	var d struct{ Entities int }
	if err := json.Unmarshal(b, &d); err != nil || status != http.StatusOK {
		t.Fatalf("%s: digest: %d %s", a.session, status, b)
	}
	return d.Entities
}

// post creates a customer from form, under an Idempotency-Key.
func (a *writer) post(url, form, key string) (*http.Response, error) {
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/customers", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Wraith-Session", a.session)
	req.Header.Set("Idempotency-Key", key)
	return a.client.Do(req)
}

func get(t *testing.T, url, session string) ([]byte, int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if session != "" {
		req.Header.Set("X-Wraith-Session", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b, resp.StatusCode
}

// killable is a wraith-twin process a test may SIGKILL.
type killable struct {
	cmd    *exec.Cmd
	url    string
	stdin  io.WriteCloser
	stderr *testbin.Buffer
	done   chan error
}

func startKillable(t *testing.T, bin string, args ...string) *killable {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin, append(args, "--ready-fd", "3")...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = testbin.Env()
	p := &killable{cmd: cmd, stderr: &testbin.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	ready, err := ipc.ReadLine(r, 15*time.Second)
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("wraith-twin %s: %v\nstderr:\n%s", strings.Join(args, " "), err, p.stderr.String())
	}
	p.url = ready.Serve.URL
	return p
}

func (p *killable) kill(t *testing.T) {
	t.Helper()
	p.cmd.Process.Kill()
	<-p.done
}

func (p *killable) stop(t *testing.T) {
	t.Helper()
	p.stdin.Close()
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("wraith-twin exited with %v\nstderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		t.Errorf("wraith-twin did not stop within 10 s\nstderr:\n%s", p.stderr.String())
	}
}

func envInt(t *testing.T, key string, def int) int {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a whole number, 1 or more", key, v)
	}
	return n
}
