package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// soakConfig is everything `harness soak` is told.
type soakConfig struct {
	out, lua, wraith string
	duration         time.Duration
	rounds, conns    int
	threads          int
	sessions         int
	postEvery        int
	rssGrowth        float64 // allowed growth of idle RSS from the first round to the last, as a fraction
	slack            int64   // allowed growth of threads and goroutines
}

// sample is the server's state at one idle moment.
type sample struct {
	when                 string
	rss, threads, gorout int64 // gorout -1 when unknown
}

func runSoak(ctx context.Context, args []string) error {
	var c soakConfig
	fs := flag.NewFlagSet("harness soak", flag.ContinueOnError)
	fs.StringVar(&c.out, "out", "bench/out", "folder for the soak report and logs")
	fs.StringVar(&c.lua, "lua", "bench/load.lua", "wrk script")
	fs.StringVar(&c.wraith, "wraith", "", "wraith or wraith-twin binary")
	fs.DurationVar(&c.duration, "duration", 15*time.Second, "length of each load round (whole seconds)")
	fs.IntVar(&c.rounds, "rounds", 2, "load rounds; every session is reset between rounds")
	fs.IntVar(&c.conns, "conns", 256, "keep-alive connections")
	fs.IntVar(&c.threads, "threads", 2, "wrk threads")
	fs.IntVar(&c.sessions, "sessions", 256, "sessions the load spreads over")
	fs.IntVar(&c.postEvery, "post-every", 5, "one request in this many is a create, the others recorded GETs")
	fs.Float64Var(&c.rssGrowth, "rss-growth", 0.20, "allowed growth of idle RSS from the first round to the last")
	fs.Int64Var(&c.slack, "slack", 4, "allowed growth of threads and goroutines")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if c.wraith == "" || c.rounds < 1 || c.duration < time.Second {
		return usageError{"want -wraith BIN, -rounds ≥ 1 and -duration ≥ 1s"}
	}
	for _, p := range []*string{&c.out, &c.lua, &c.wraith} {
		if err := absolute(p); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(c.out, "logs"), 0o755); err != nil {
		return err
	}
	work, err := filepath.Abs(filepath.Join(c.out, "work", "soak"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	pr := peers{wraith: c.wraith}
	s := spec{name: sWraith, dir: work, ready: filepath.Join(work, "ready.json"), probe: getProbe(), env: []string{"GOTRACEBACK=all"}}
	s.argv = pr.wraithArgv(s.ready, 10000)

	// An idle fresh server's goroutines and threads: the baseline.
	baseLog := filepath.Join(c.out, "logs", "soak-baseline.log")
	p, _, err := start(ctx, s, baseLog, time.Minute)
	if err != nil {
		return err
	}
	sleep(ctx, time.Second)
	base := p.sample("idle, fresh process", baseLog)
	p.stop()

	logPath := filepath.Join(c.out, "logs", "soak.log")
	p, _, err = start(ctx, s, logPath, time.Minute)
	if err != nil {
		return err
	}
	defer p.stop()
	sleep(ctx, time.Second)
	samples := []sample{base, p.sample("idle, before load", "")}
	var failures []string
	var total wrkResult
	client := &http.Client{Timeout: 5 * time.Second}
	for r := 1; r <= c.rounds; r++ {
		res, err := wrkRun{url: p.url, threads: c.threads, conns: c.conns, duration: c.duration, lua: c.lua, env: []string{
			"WRK_MODE=mix", "WRK_COUNT_STATUS=1", "WRK_SESSIONS=" + strconv.Itoa(c.sessions), "WRK_SESSION_PREFIX=soak-",
			"WRK_POST_EVERY=" + strconv.Itoa(c.postEvery), "WRK_AUTH=" + authHeader, "WRK_BODY=" + createBody}}.run(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("round %d: %d requests (%.0f/s), 2xx %d, 4xx %d, 5xx %d, socket errors %d, p99 %s\n",
			r, res.Requests, res.rps(), res.S2xx, res.S4xx, res.S5xx, res.socketErrors(), fUS(res.P99US))
		total.Requests += res.Requests
		total.S4xx += res.S4xx
		total.S5xx += res.S5xx
		total.Connect += res.socketErrors()
		if !p.alive() {
			return fmt.Errorf("wraith exited during round %d: %v%s", r, p.err, tail(logPath))
		}
		// Drop what the round created, so that what stays is what leaks.
		code, body, err := do(client, p.url, probe{method: "POST", path: "/__wraith/reset"}, []byte("{}"))
		if err != nil || code != 200 {
			failures = append(failures, fmt.Sprintf("POST /__wraith/reset after round %d: %d %v %s", r, code, err, body))
		}
		sleep(ctx, 2*time.Second)
		if code, _, err := do(client, p.url, probe{method: "GET", path: "/__wraith/health"}, nil); err != nil || code != 200 {
			failures = append(failures, fmt.Sprintf("health after round %d: %d %v", r, code, err))
		}
		samples = append(samples, p.sample(fmt.Sprintf("idle after round %d and a reset", r), ""))
	}
	client.CloseIdleConnections()
	sleep(ctx, time.Second)
	end := p.sample("end, idle", logPath)
	samples = append(samples, end)

	if total.S5xx > 0 {
		failures = append(failures, fmt.Sprintf("%d responses with status 5xx (none is by design in this mix)", total.S5xx))
	}
	if total.S4xx > 0 {
		failures = append(failures, fmt.Sprintf("%d responses with status 4xx", total.S4xx))
	}
	if total.Connect > 0 {
		failures = append(failures, fmt.Sprintf("%d socket errors or timeouts", total.Connect))
	}
	first, last := samples[2], samples[len(samples)-2]
	if limit := int64(float64(first.rss)*(1+c.rssGrowth)) + 4096; last.rss > limit {
		failures = append(failures, fmt.Sprintf("idle RSS grew from %s after round 1 to %s after round %d (limit %s)",
			fMiB(float64(first.rss)), fMiB(float64(last.rss)), c.rounds, fMiB(float64(limit))))
	}
	if last.threads > first.threads+c.slack {
		failures = append(failures, fmt.Sprintf("threads grew from %d after round 1 to %d after round %d", first.threads, last.threads, c.rounds))
	}
	if end.gorout < 0 || base.gorout < 0 {
		failures = append(failures, "could not count goroutines, neither from /__wraith/info nor from a SIGQUIT stack dump")
	} else if end.gorout > base.gorout+c.slack {
		failures = append(failures, fmt.Sprintf("%d goroutines at the end against %d in an idle fresh process", end.gorout, base.gorout))
	}
	return soakReport(c, samples, total, failures)
}

// sample reads RSS and threads from /proc and the goroutine count from
// /__wraith/info. When info has no count and dumpLog is set, it stops the
// process with SIGQUIT and counts the goroutines of the stack dump there
// (GOTRACEBACK=all: user goroutines only, the same in every dump).
func (p *proc) sample(when, dumpLog string) sample {
	s := sample{when: when, gorout: -1}
	if m, err := procStatus(p.pid); err == nil {
		s.rss, s.threads = m["VmRSS"], m["Threads"]
	}
	c := &http.Client{Timeout: 2 * time.Second}
	if code, body, err := do(c, p.url, probe{method: "GET", path: "/__wraith/info"}, nil); err == nil && code == 200 {
		var info struct {
			Goroutines *int64 `json:"goroutines"`
		}
		if json.Unmarshal(body, &info) == nil && info.Goroutines != nil {
			s.gorout = *info.Goroutines
		}
	}
	if dumpLog == "" || s.gorout >= 0 {
		return s
	}
	syscall.Kill(p.pid, syscall.SIGQUIT)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
	}
	if b, err := os.ReadFile(dumpLog); err == nil {
		n := int64(len(regexp.MustCompile(`(?m)^goroutine \d+ \[`).FindAll(b, -1)))
		if n > 0 {
			s.gorout = n
		}
	}
	return s
}

func soakReport(c soakConfig, samples []sample, total wrkResult, failures []string) error {
	var w strings.Builder
	fmt.Fprintf(&w, "# Wraith soak, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&w, "%d round(s) of %s, %d keep-alive connections, one create in %d requests (the rest recorded GETs) over %d sessions; every session reset between rounds.\n\n",
		c.rounds, c.duration, c.conns, c.postEvery, c.sessions)
	fmt.Fprintf(&w, "%d requests, %d 4xx, %d 5xx, %d socket errors.\n\n", total.Requests, total.S4xx, total.S5xx, total.Connect)
	fmt.Fprintf(&w, "| moment | RSS | threads | goroutines |\n|---|---|---|---|\n")
	for _, s := range samples {
		g := "—"
		if s.gorout >= 0 {
			g = strconv.FormatInt(s.gorout, 10)
		}
		fmt.Fprintf(&w, "| %s | %s | %d | %s |\n", s.when, fMiB(float64(s.rss)), s.threads, g)
	}
	if len(failures) == 0 {
		fmt.Fprintf(&w, "\nPASS\n")
	} else {
		fmt.Fprintf(&w, "\nFAIL\n\n- %s\n", strings.Join(failures, "\n- "))
	}
	path := filepath.Join(c.out, "soak-"+time.Now().UTC().Format("2006-01-02T1504Z")+".md")
	os.WriteFile(path, []byte(w.String()), 0o644)
	fmt.Print(w.String())
	fmt.Printf("(also in %s)\n", path)
	if len(failures) > 0 {
		return fmt.Errorf("soak failed: %d check(s)", len(failures))
	}
	return nil
}
