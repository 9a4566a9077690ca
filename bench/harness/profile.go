package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// runProfile starts bench/wraithprof (Wraith with a CPU profile of the
// whole process), drives one benchmark load against it, and stops it, so
// that the profile holds what serving that load cost: net/http, the
// server's handler and the engine.
func runProfile(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("harness profile", flag.ContinueOnError)
	bin := fs.String("wraithprof", "", "bench/wraithprof binary")
	out := fs.String("out", "bench/out", "folder for logs and scratch files")
	lua := fs.String("lua", "bench/load.lua", "wrk script")
	prof := fs.String("cpuprofile", "", "profile to write")
	memProf := fs.String("memprofile", "", "heap profile to write when the load is over (optional)")
	mode := fs.String("mode", "get", "get or post")
	conns := fs.Int("conns", 256, "keep-alive connections")
	sessions := fs.Int("sessions", 1, "sessions the load spreads over (1: every request in one session)")
	duration := fs.Duration("duration", 10*time.Second, "length of the load")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *bin == "" || *prof == "" {
		return usageError{"want -wraithprof BIN and -cpuprofile FILE"}
	}
	for _, p := range []*string{bin, out, lua, prof, memProf} {
		if err := absolute(p); err != nil {
			return err
		}
	}
	work := filepath.Join(*out, "work", "profile")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	ready := filepath.Join(work, "ready.json")
	s := spec{name: "wraithprof", dir: work, ready: ready, probe: getProbe(), argv: []string{*bin, "checkout",
		"--port", "0", "--ready-json", ready, "--seed", "42", "--clock", "deterministic",
		"--max-sessions", "20000", "--max-entities", strconv.Itoa(noEntityLimit), "--cpuprofile", *prof}}
	if *memProf != "" {
		s.argv = append(s.argv, "--memprofile", *memProf)
	}
	p, _, err := start(ctx, s, filepath.Join(*out, "logs", "profile-"+*mode+".log"), time.Minute)
	if err != nil {
		return err
	}
	defer p.stop()
	ls := liveServer{shape: shape{*sessions, "b-", 4}}
	res, err := wrkRun{url: p.url, threads: 2, conns: *conns, duration: *duration, lua: *lua, env: ls.env(*mode)}.run(ctx)
	if err != nil {
		return err
	}
	p.stop() // the profile is written on the way out
	fmt.Printf("%s c=%d in %d session(s) under the CPU profile: %.0f req/s, p99 %.2f ms, %d non-2xx, %d errors\n",
		*mode, *conns, *sessions, res.rps(), res.P99US/1000, res.Status, res.socketErrors())
	return nil
}
