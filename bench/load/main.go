// Command load is Wraith's bounded load test and soak (make soak): it
// builds wraith-twin, starts it on 127.0.0.1:0, drives it with many
// connections for a fixed time per round (recorded GETs, creates spread
// over many sessions, lists, a few control reads), resets every session
// after each round, and fails unless every answer is one the twin gives by
// design, no 5xx among them, the twin's goroutine count returns to where
// it started once the clients hang up, and its idle resident memory after
// the last round's reset is not much above the first's.
//
//	go run ./bench/load                          # 256 connections, 2 rounds of 15 s
//	go run ./bench/load -conns 64 -duration 5s   # a quick look
//
// It is not part of `go test ./...`: it takes half a minute and both cores.
// Exit status: 0 pass, 1 a check failed or the twin misbehaved, 2 bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// config is what a run is told.
type config struct {
	conns     int
	duration  time.Duration
	rounds    int
	rssGrowth float64 // idle RSS may grow this fraction (plus 4 MiB) from the first round to the last
	sessions  int
	twin      string
	bin       string
	slack     int           // goroutines the twin may keep beyond its count before the load
	settle    time.Duration // how long the goroutine count may take to come back
	startWait time.Duration
}

// Bounds keep a mistyped flag from turning a load test into an outage.
const (
	maxConns    = 4096
	maxDuration = 10 * time.Minute
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.IntVar(&c.conns, "conns", 256, fmt.Sprintf("concurrent connections, 1 to %d", maxConns))
	fs.DurationVar(&c.duration, "duration", 15*time.Second, fmt.Sprintf("how long each round drives load, up to %s", maxDuration))
	fs.IntVar(&c.rounds, "rounds", 2, "rounds of load; every session is reset after each")
	fs.Float64Var(&c.rssGrowth, "rss-growth", 0.20, "idle RSS may grow this fraction, plus 4 MiB, from the first round's reset to the last")
	fs.IntVar(&c.sessions, "sessions", 1000, "sessions the creates and lists spread over")
	fs.StringVar(&c.twin, "twin", "checkout", "embedded twin to serve (the request mix is checkout's)")
	fs.StringVar(&c.bin, "bin", "", "a built wraith-twin to use instead of building one")
	fs.IntVar(&c.slack, "goroutine-slack", 8, "goroutines the twin may keep after the load beyond its count before it")
	fs.DurationVar(&c.settle, "settle", 10*time.Second, "how long the twin's goroutine count may take to come back after the load")
	fs.DurationVar(&c.startWait, "start-timeout", 30*time.Second, "how long wraith-twin may take to report ready")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := c.validate(); err != nil {
		fmt.Fprintf(stderr, "load: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := loadTest(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "load: FAIL: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "load: PASS")
	return 0
}

func (c config) validate() error {
	var errs []error
	if c.conns < 1 || c.conns > maxConns {
		errs = append(errs, fmt.Errorf("-conns %d: want 1 to %d", c.conns, maxConns))
	}
	if c.duration <= 0 || c.duration > maxDuration {
		errs = append(errs, fmt.Errorf("-duration %s: want more than 0 and at most %s", c.duration, maxDuration))
	}
	if c.rounds < 1 || c.rounds > 100 {
		errs = append(errs, fmt.Errorf("-rounds %d: want 1 to 100", c.rounds))
	}
	if c.sessions < 1 || c.sessions > 10000 {
		errs = append(errs, fmt.Errorf("-sessions %d: want 1 to 10000 (the twin's default --max-sessions)", c.sessions))
	}
	if c.twin != "checkout" {
		errs = append(errs, fmt.Errorf("-twin %q: the request mix is written for checkout", c.twin))
	}
	if c.slack < 0 {
		errs = append(errs, fmt.Errorf("-goroutine-slack %d: want 0 or more", c.slack))
	}
	return errors.Join(errs...)
}

// loadTest runs the whole test: start the twin, measure, load, measure,
// stop, judge.
func loadTest(ctx context.Context, c config, stdout, stderr io.Writer) error {
	tw, err := startTwin(ctx, c, stderr)
	if err != nil {
		return err
	}
	defer tw.stop(stderr)

	before, err := tw.goroutines()
	if err != nil {
		return fmt.Errorf("read goroutines before the load: %w", err)
	}
	fmt.Fprintf(stdout, "load: wraith-twin %s at %s (pid %d); %d round(s) of %d connections for %s over %d sessions\n",
		c.twin, tw.url, tw.cmd.Process.Pid, c.rounds, c.conns, c.duration, c.sessions)

	res := result{byKind: map[string]int{}, byStatus: map[int]int{}}
	var rss []int64 // KiB, idle after each round's reset
	var fails []error
	for r := 1; r <= c.rounds && ctx.Err() == nil; r++ {
		round := drive(ctx, tw.url, c)
		fmt.Fprintf(stdout, "load: round %d\n", r)
		round.print(stdout)
		res.merge(&round)
		// Drop what the round created, so that what stays is what leaks.
		if err := tw.reset(); err != nil {
			fails = append(fails, fmt.Errorf("after round %d: %w", r, err))
		}
		if _, err := tw.settled(before+c.slack, c.settle); err != nil {
			return fmt.Errorf("read goroutines after round %d: %w", r, err)
		}
		kib, err := tw.rss()
		if err != nil {
			return fmt.Errorf("read the twin's RSS after round %d: %w", r, err)
		}
		rss = append(rss, kib)
		fmt.Fprintf(stdout, "load: idle RSS after round %d and a reset: %.1f MiB\n", r, float64(kib)/1024)
	}
	if len(rss) > 1 {
		first, last := rss[0], rss[len(rss)-1]
		if limit := int64(float64(first)*(1+c.rssGrowth)) + 4096; last > limit {
			fails = append(fails, fmt.Errorf("idle RSS grew from %.1f MiB after round 1 to %.1f MiB after round %d (limit %.1f MiB): something leaks",
				float64(first)/1024, float64(last)/1024, len(rss), float64(limit)/1024))
		}
	}

	after, err := tw.settled(before+c.slack, c.settle)
	if err != nil {
		return fmt.Errorf("read goroutines after the load: %w", err)
	}
	fmt.Fprintf(stdout, "load: goroutines before %d, after %d (allowed %d)\n", before, after, before+c.slack)

	if err := ctx.Err(); err != nil {
		fails = append(fails, errors.New("interrupted"))
	}
	if res.transport > 0 {
		fails = append(fails, fmt.Errorf("%d requests failed in transport (first: %v)", res.transport, res.firstErr))
	}
	if bad := res.unexpected(); len(bad) > 0 {
		fails = append(fails, fmt.Errorf("statuses not in the mix's design: %v (first body: %.300s)", bad, res.firstBad))
	}
	if after > before+c.slack {
		fails = append(fails, fmt.Errorf("goroutines grew from %d to %d after the clients hung up: something leaks", before, after))
	}
	if err := tw.stop(stderr); err != nil {
		fails = append(fails, err)
	}
	return errors.Join(fails...)
}
