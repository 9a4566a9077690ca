// Command load is Wraith's bounded load test: it builds wraith-twin, starts
// it on 127.0.0.1:0, drives it with many connections for a fixed time
// (recorded GETs, creates spread over many sessions, lists, a few control
// reads), and fails unless every answer is one the twin gives by design,
// no 5xx among them, and the twin's goroutine count returns to where it
// started once the clients hang up.
//
//	go run ./bench/load                         # 256 connections, 30 s
//	go run ./bench/load -conns 64 -duration 5s  # a quick look
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
	fs.DurationVar(&c.duration, "duration", 30*time.Second, fmt.Sprintf("how long to drive load, up to %s", maxDuration))
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
	fmt.Fprintf(stdout, "load: wraith-twin %s at %s (pid %d); %d connections for %s over %d sessions\n",
		c.twin, tw.url, tw.cmd.Process.Pid, c.conns, c.duration, c.sessions)

	res := drive(ctx, tw.url, c)
	res.print(stdout)

	after, err := tw.settled(before+c.slack, c.settle)
	if err != nil {
		return fmt.Errorf("read goroutines after the load: %w", err)
	}
	fmt.Fprintf(stdout, "load: goroutines before %d, after %d (allowed %d)\n", before, after, before+c.slack)

	var fails []error
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
