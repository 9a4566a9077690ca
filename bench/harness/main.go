// Command harness runs Wraith's side-by-side benchmark; it is what
// bench/run.sh calls once it has installed wrk and the peers. `harness
// bench` times the start of `wraith serve` for a few twins, starts the
// servers on loopback (the plain net/http ceiling; Wraith three times, for
// loads in one session, spread over 256 sessions and over 10,000 live
// ones; stripe-mock, WireMock, Mountebank), measures exec → ready and idle
// RSS, drives bounded wrk loads through bench/load.lua, reads each
// server's CPU time and peak RSS from /proc, then measures the RSS a fresh
// Wraith holds per created customer after a bounded memory load, and
// prints one Go benchmark line per server, load and pass, for benchstat.
// `harness report` turns benchstat's output into RESULTS.md.
// Every process it starts runs in its own process group and is stopped by
// that pid, on success, on failure and on SIGINT or SIGTERM.
//
//	harness bench -wraith bin/wraith -ceiling bin/ceiling ... >load.txt
//	harness report -lines load.txt -stat stat.txt -stat-csv stat.csv -o bench/RESULTS.md
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
		fmt.Fprintln(os.Stderr, "usage: harness bench|report|profile [flags] (see bench/README.md)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "bench":
		err = runBench(ctx, os.Args[2:])
	case "report":
		err = runReport(os.Args[2:])
	case "profile":
		err = runProfile(ctx, os.Args[2:])
	default:
		err = usageError{fmt.Sprintf("unknown subcommand %q: want bench, report or profile", os.Args[1])}
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
