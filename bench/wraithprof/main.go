// Command wraithprof serves a twin as wraith-twin does, through the same
// serve entry point (internal/serve), and writes a pprof CPU profile of the whole process
// (net/http, the server's handler and the engine) when it stops. bench/run.sh
// drives it with the benchmark's loads to show where a served request's
// time goes, which the engine's own benchmarks, without sockets, cannot.
//
//	wraithprof checkout --port 0 --ready-json ready.json --cpuprofile get.prof
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"

	"github.com/wraithdev/wraith/internal/serve"
)

func main() {
	// The one place wraithprof catches signals: bench/run.sh stops it
	// with SIGTERM, and the profiles are written as it returns.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "wraithprof: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' {
		return fmt.Errorf("usage: wraithprof TWIN [serve flags] --cpuprofile FILE")
	}
	fs := flag.NewFlagSet("wraithprof", flag.ContinueOnError)
	opts := serve.Flags(fs)
	opts.LogLevel = "warn" // a profile run wants its terminal quiet
	prof := fs.String("cpuprofile", "", "write a CPU profile of the whole run here")
	memProf := fs.String("memprofile", "", "when it stops, write a heap profile here (live objects after a GC)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *prof == "" {
		return fmt.Errorf("want --cpuprofile FILE")
	}
	opts.Server.Twin = args[0]
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	srv, err := serve.Open(opts, serve.Env{
		Logger: opts.Logger("wraithprof", os.Stderr),
		Stdin:  os.Stdin, Getenv: os.Getenv, Dir: dir, Version: "wraithprof",
	})
	if err != nil {
		return err
	}
	f, err := os.Create(*prof)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	if err := serve.Run(ctx, srv, os.Getenv); err != nil {
		return err
	}
	if *memProf == "" {
		return nil
	}
	err = writeHeap(*memProf)
	runtime.KeepAlive(srv) // its sessions are what the heap profile shows
	return err
}

// writeHeap writes a heap profile of what is still alive: the server has
// stopped, but its sessions, and everything they hold, are still reachable.
func writeHeap(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
