// Command harness runs Wraith's side-by-side benchmark and its soak; it is
// what bench/run.sh and bench/soak.sh call once they have installed wrk and
// the peers. It starts one server at a time on loopback (the plain net/http
// ceiling, Wraith with one session and with 10,000 sessions alive,
// stripe-mock, WireMock, Mountebank), measures exec → ready, idle and peak
// RSS, and drives bounded wrk loads through bench/load.lua, reading each
// server's CPU time from /proc. Every process it starts runs in its own
// process group and is stopped by that pid, on success, on failure and on
// SIGINT or SIGTERM.
//
//	harness bench -out bench/out -results bench/RESULTS.md -wraith bin/wraith ...
//	harness soak -wraith bin/wraith -duration 15s -rounds 2
//	harness profile -wraithprof bin/wraithprof -mode get -cpuprofile get.prof
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: harness bench|soak|profile [flags] (see bench/README.md)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "bench":
		err = runBench(ctx, os.Args[2:])
	case "soak":
		err = runSoak(ctx, os.Args[2:])
	case "profile":
		err = runProfile(ctx, os.Args[2:])
	default:
		err = usageError{fmt.Sprintf("unknown subcommand %q: want bench, soak or profile", os.Args[1])}
	}
	var ue usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "harness: %v\n", err)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "harness: %v\n", err)
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return fmt.Sprint(*l) }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
