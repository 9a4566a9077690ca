package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// runProfile starts bench/wraithprof (Wraith with a CPU profile it opens
// and closes on signals), optionally fills it with created customers,
// then profiles one benchmark load against it and stops it, so that the
// profile holds what serving that load cost, and only that: net/http, the
// server's handler, the engine and the garbage collector. Beside the
// profile, wraithprof writes what garbage collection cost during it.
func runProfile(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("harness profile", flag.ContinueOnError)
	bin := fs.String("wraithprof", "", "bench/wraithprof binary")
	out := fs.String("out", "bench/out", "folder for logs and scratch files")
	lua := fs.String("lua", "bench/load.lua", "wrk script")
	prof := fs.String("cpuprofile", "", "profile to write")
	gcstats := fs.String("gcstats", "", "GC figures of the profiled load, as JSON (default: the profile's name followed by .gc.json)")
	memProf := fs.String("memprofile", "", "heap profile to write when the load is over (optional)")
	mode := fs.String("mode", "get", "get or post")
	conns := fs.Int("conns", 256, "keep-alive connections")
	sessions := fs.Int("sessions", 1, "sessions the load spreads over (1: every request in one session)")
	duration := fs.Duration("duration", 10*time.Second, "length of the load")
	fill := fs.Int("fill", 0, "before the profiled load, create this many customers, spread over the load's sessions")
	fillConns := fs.Int("fill-conns", 32, "connections of the creates that fill the process")
	fillTimeout := fs.Duration("fill-timeout", 2*time.Minute, "bound of the creates that fill the process; the load then runs on what they made")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *bin == "" || *prof == "" {
		return usageError{"want -wraithprof BIN and -cpuprofile FILE"}
	}
	if *fill < 0 || *fillConns < 1 || *sessions < 1 {
		return usageError{"want -fill ≥ 0, -fill-conns ≥ 1 and -sessions ≥ 1"}
	}
	if *gcstats == "" {
		*gcstats = *prof + ".gc.json"
	}
	for _, p := range []*string{bin, out, lua, prof, gcstats, memProf} {
		if err := absolute(p); err != nil {
			return err
		}
	}
	work := filepath.Join(*out, "work", "profile")
	for _, d := range []string{work, filepath.Join(*out, "logs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// Stale files would pass for this run's: the waits below look for them.
	for _, f := range []string{*prof, *gcstats} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	ready := filepath.Join(work, "ready.json")
	s := spec{name: "wraithprof", dir: work, ready: ready, probe: getProbe(), argv: []string{*bin, "checkout",
		"--port", "0", "--ready-json", ready, "--seed", "42", "--clock", "deterministic",
		"--max-sessions", "20000", "--max-entities", strconv.Itoa(noEntityLimit),
		"--cpuprofile", *prof, "--on-signal", "--gcstats", *gcstats}}
	if *memProf != "" {
		s.argv = append(s.argv, "--memprofile", *memProf)
	}
	name := *mode
	if *fill > 0 {
		name += "-filled"
	}
	logPath := filepath.Join(*out, "logs", "profile-"+name+".log")
	p, _, err := start(ctx, s, logPath, time.Minute)
	if err != nil {
		return err
	}
	defer p.stop()
	ls := liveServer{shape: shape{*sessions, "b-", 4}}

	held := ""
	if *fill > 0 {
		f, err := fillCreates(ctx, p, ls.shape, *fill, *fillConns, *fillTimeout)
		if err != nil {
			return fmt.Errorf("fill: %w%s", err, tail(logPath))
		}
		fmt.Printf("filled: %d customers created in %.1f s (%.0f/s), %d non-2xx, %d errors\n",
			f.ok, f.took.Seconds(), float64(f.ok)/f.took.Seconds(), f.non2xx, f.errs)
		held = fmt.Sprintf(", after %d creates", f.ok)
	}

	// The window: wraithprof creates the profile's file as it starts the
	// profile, and writes the GC figures once the profile is complete.
	if err := p.signal(syscall.SIGUSR1); err != nil {
		return err
	}
	if err := waitFor(ctx, p, *prof, 10*time.Second); err != nil {
		return fmt.Errorf("the CPU profile did not start: %w%s", err, tail(logPath))
	}
	res, err := wrkRun{url: p.url, threads: 2, conns: *conns, duration: *duration, lua: *lua, env: ls.env(*mode)}.run(ctx)
	if err != nil {
		return err
	}
	if err := p.signal(syscall.SIGUSR2); err != nil {
		return err
	}
	if err := waitFor(ctx, p, *gcstats, 30*time.Second); err != nil {
		return fmt.Errorf("the CPU profile was not written: %w%s", err, tail(logPath))
	}
	gc, err := readGCFigures(*gcstats)
	if err != nil {
		return err
	}
	p.stop() // the heap profile is written on the way out
	fmt.Printf("%s c=%d in %d session(s)%s, under the CPU profile: %.0f req/s, p50 %.2f ms, p99 %.2f ms, %d non-2xx, %d errors\n",
		*mode, *conns, *sessions, held, res.rps(), res.P50US/1000, res.P99US/1000, res.Status, res.socketErrors())
	fmt.Println(gc)
	return nil
}

// signal sends sig to the server process alone, not its group.
func (p *proc) signal(sig syscall.Signal) error {
	if !p.alive() {
		return fmt.Errorf("%s exited: %v", p.name, p.err)
	}
	return syscall.Kill(p.pid, sig)
}

// waitFor polls until path exists, p exits, ctx ends or timeout passes.
func waitFor(ctx context.Context, p *proc, path string, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.exited:
			return fmt.Errorf("%s exited: %v", p.name, p.err)
		case <-deadline.C:
			return fmt.Errorf("no %s %s after the signal", path, timeout)
		case <-tick.C:
		}
	}
}

// fillCreates fills p with n creates (see sendCreates). A non-2xx answer
// or a transport error is an error, since the load would then run on
// something other than a process full of customers.
func fillCreates(ctx context.Context, p *proc, sh shape, n, conns int, timeout time.Duration) (createCounts, error) {
	r := sendCreates(ctx, p, sh, n, conns, timeout)
	switch {
	case !p.alive():
		return r, fmt.Errorf("%s stopped during the creates: %v", p.name, p.err)
	case ctx.Err() != nil:
		return r, ctx.Err()
	case r.non2xx > 0 || r.errs > 0:
		return r, fmt.Errorf("%d of %d creates answered other than 200, %d failed", r.non2xx, r.ok+r.non2xx+r.errs, r.errs)
	}
	return r, nil
}

// gcFigures is the part of wraithprof's --gcstats JSON that the summary
// quotes (bench/wraithprof/window.go documents every field).
type gcFigures struct {
	Seconds          float64 `json:"seconds"`
	GCCycles         uint64  `json:"gc_cycles"`
	CPUClassSeconds  float64 `json:"cpu_class_seconds"`
	GCCPUFraction    float64 `json:"gc_cpu_fraction"`
	GCAssistFraction float64 `json:"gc_assist_fraction"`
	GCPauses         uint64  `json:"gc_pauses"`
	GCPausesOver1ms  uint64  `json:"gc_pauses_over_1ms"`
	GCPauseP50       float64 `json:"gc_pause_p50_seconds"`
	GCPauseMax       float64 `json:"gc_pause_max_seconds"`
	SchedLatencyP99  float64 `json:"sched_latency_p99_seconds"`
	AllocBytes       uint64  `json:"alloc_bytes"`
	HeapLiveStart    uint64  `json:"heap_live_bytes_start"`
	HeapLiveEnd      uint64  `json:"heap_live_bytes_end"`
	GOGC             uint64  `json:"gogc_end"`
}

func readGCFigures(path string) (gcFigures, error) {
	var g gcFigures
	b, err := os.ReadFile(path)
	if err != nil {
		return g, err
	}
	if err := json.Unmarshal(b, &g); err != nil {
		return g, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// String is the summary line of the profile's GC figures.
func (g gcFigures) String() string {
	return fmt.Sprintf("GC during the profile (%.1f s, runtime/metrics): %d cycles, %.1f%% of the Ps' time (assists %.1f%%; over the first %.1f s), "+
		"%d stop-the-world pauses, median %.2f ms, %d over 1 ms, longest %.2f ms; goroutine scheduling latency p99 %.2f ms; %.0f MiB allocated; live heap %.1f → %.1f MiB; GOGC %d",
		g.Seconds, g.GCCycles, 100*g.GCCPUFraction, 100*g.GCAssistFraction, g.CPUClassSeconds,
		g.GCPauses, 1000*g.GCPauseP50, g.GCPausesOver1ms, 1000*g.GCPauseMax, 1000*g.SchedLatencyP99, float64(g.AllocBytes)/(1<<20),
		float64(g.HeapLiveStart)/(1<<20), float64(g.HeapLiveEnd)/(1<<20), g.GOGC)
}
