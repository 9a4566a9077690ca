// Command wraithprof serves a twin as wraith-twin does, through the same
// serve entry point (internal/serve), and writes a pprof CPU profile of the
// whole process (net/http, the server's handler and the engine, and the
// garbage collector). bench/run.sh drives it with the benchmark's loads to
// show where a served request's time goes, which the engine's own
// benchmarks, without sockets, cannot.
//
//	wraithprof checkout --port 0 --ready-json ready.json --cpuprofile get.prof
//
// By default the profile covers the whole run, from start to SIGTERM. With
// --on-signal it covers only what the caller chooses, so that a load can
// be profiled on a process already filled with state without the filling
// in the profile: SIGUSR1 forces a collection and starts the profile,
// SIGUSR2 stops it and writes it. A SIGUSR1 while the profile runs and a
// SIGUSR2 while it does not are ignored; a SIGUSR1 after a SIGUSR2 starts a
// new profile that overwrites the file; SIGTERM stops and writes a profile
// still running. Send the signals only once the ready JSON is on disk:
// before that, SIGUSR1 and SIGUSR2 kill the process.
//
// --gcstats FILE writes, once each profile is written, what garbage
// collection cost during it, as JSON (the fields of gcFigures in
// window.go: cycles, the GC's share of the process's CPU, assists, pauses,
// the live heap, GOGC). It is written by rename, after the profile: a
// caller who sees it knows the profile is complete.
//
// --memprofile FILE writes, once the server has stopped, a heap profile of
// what it still holds.
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
	// with SIGTERM, and the profiles are written as it returns; SIGUSR1
	// and SIGUSR2 open and close the profile's window (--on-signal).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	window := make(chan os.Signal, 4)
	signal.Notify(window, syscall.SIGUSR1, syscall.SIGUSR2)
	err := run(ctx, os.Args[1:], window)
	signal.Stop(window)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "wraithprof: %v\n", err)
		os.Exit(1)
	}
}

// run serves until ctx ends. With --on-signal, SIGUSR1 and SIGUSR2 on
// signals start and stop the CPU profile; without it, signals is unread.
func run(ctx context.Context, args []string, signals <-chan os.Signal) error {
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' {
		return fmt.Errorf("usage: wraithprof TWIN [serve flags] --cpuprofile FILE [--on-signal] [--gcstats FILE] [--memprofile FILE]")
	}
	fs := flag.NewFlagSet("wraithprof", flag.ContinueOnError)
	opts := serve.Flags(fs)
	opts.LogLevel = "warn" // a profile run wants its terminal quiet
	prof := fs.String("cpuprofile", "", "write a CPU profile here")
	onSignal := fs.Bool("on-signal", false, "profile from SIGUSR1 to SIGUSR2 instead of the whole run")
	gcstats := fs.String("gcstats", "", "once a profile is written, write what garbage collection cost during it here, as JSON")
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
	w := &window{prof: *prof, gcstats: *gcstats}
	done, followed := make(chan struct{}), make(chan struct{})
	if *onSignal {
		go func() { follow(w, signals, done); close(followed) }()
	} else {
		close(followed)
		if err := w.start(); err != nil {
			return err
		}
	}
	runErr := serve.Run(ctx, srv, os.Getenv)
	close(done)
	<-followed // no signal reopens the window after the stop below
	if err := w.stop(); err != nil {
		return fmt.Errorf("write the CPU profile %s: %w", *prof, err)
	}
	if runErr != nil || *memProf == "" {
		return runErr
	}
	err = writeHeap(*memProf)
	runtime.KeepAlive(srv) // its sessions are what the heap profile shows
	return err
}

// follow opens and closes w as SIGUSR1 and SIGUSR2 arrive, until done.
// A failure is logged, not fatal: the server goes on serving, and the
// caller finds no profile.
func follow(w *window, signals <-chan os.Signal, done <-chan struct{}) {
	for {
		var err error
		select {
		case <-done:
			return
		case s := <-signals:
			switch s {
			case syscall.SIGUSR1:
				err = w.start()
			case syscall.SIGUSR2:
				err = w.stop()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "wraithprof: %v: %v\n", s, err)
			}
		}
	}
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
