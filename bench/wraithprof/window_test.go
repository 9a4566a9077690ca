package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"syscall"
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	inf := math.Inf(1)
	before := metrics.Float64Histogram{Counts: []uint64{1, 0, 5, 0}, Buckets: []float64{0, 1, 2, 3, inf}}
	tests := []struct {
		name   string
		counts []uint64 // after; before's counts are taken away
		q      float64
		want   float64
	}{
		{"nothing added", []uint64{1, 0, 5, 0}, 0.5, 0},
		{"all in one bucket", []uint64{1, 4, 5, 0}, 0.99, 2},
		{"median in the lower", []uint64{3, 1, 5, 0}, 0.5, 1},
		{"max in the upper", []uint64{3, 1, 6, 0}, 1, 3},
		{"max in the open bucket", []uint64{1, 0, 5, 2}, 1, 3},
		{"earlier counts do not count", []uint64{1, 1, 5, 0}, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			after := metrics.Float64Histogram{Counts: tt.counts, Buckets: before.Buckets}
			if have := quantile(&before, &after, tt.q); have != tt.want {
				t.Errorf("quantile %.2f: want %v, have %v", tt.q, tt.want, have)
			}
		})
	}
}

func TestCountOver(t *testing.T) {
	before := metrics.Float64Histogram{Counts: []uint64{1, 0, 5, 0}, Buckets: []float64{0, 1, 2, 3, math.Inf(1)}}
	after := metrics.Float64Histogram{Counts: []uint64{4, 1, 7, 3}, Buckets: before.Buckets}
	for _, tt := range []struct {
		min  float64
		want uint64
	}{{0, 9}, {1, 6}, {1.5, 5}, {3, 3}, {4, 0}} {
		if have := countOver(&before, &after, tt.min); have != tt.want {
			t.Errorf("over %v: want %d, have %d", tt.min, tt.want, have)
		}
	}
}

// TestWindowCountsWhatHappensInIt collects garbage a known number of times
// inside a window and reads the figures the window writes.
func TestWindowCountsWhatHappensInIt(t *testing.T) {
	dir := t.TempDir()
	w := &window{prof: filepath.Join(dir, "cpu.prof"), gcstats: filepath.Join(dir, "gc.json")}
	if err := w.stop(); err != nil {
		t.Fatalf("stop before start: %v", err)
	}
	if _, err := os.Stat(w.gcstats); err == nil {
		t.Fatal("stop before start wrote GC figures")
	}
	if err := w.start(); err != nil {
		t.Fatal(err)
	}
	if err := w.start(); err != nil {
		t.Fatalf("a second start while open: want nothing done, have %v", err)
	}
	const cycles = 3
	var keep [][]byte
	for range cycles {
		for range 1000 {
			keep = append(keep, make([]byte, 1024))
		}
		runtime.GC()
	}
	runtime.KeepAlive(keep)
	if err := w.stop(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(w.prof); err != nil || fi.Size() == 0 {
		t.Fatalf("profile: want a non-empty file, have %v %v", fi, err)
	}
	g := readFigures(t, w.gcstats)
	if g.GCCycles < cycles {
		t.Errorf("gc_cycles: want at least %d, have %d", cycles, g.GCCycles)
	}
	if g.GCPauses < cycles {
		t.Errorf("gc_pauses: want at least %d, have %d", cycles, g.GCPauses)
	}
	if g.AllocBytes < cycles*1000*1024 {
		t.Errorf("alloc_bytes: want at least %d, have %d", cycles*1000*1024, g.AllocBytes)
	}
	if g.GCCPUSeconds <= 0 || g.GCCPUFraction <= 0 || g.GCCPUFraction > 1 {
		t.Errorf("gc_cpu_seconds %v, gc_cpu_fraction %v: want some GC time, a fraction in (0, 1]", g.GCCPUSeconds, g.GCCPUFraction)
	}
	if g.Seconds <= 0 || g.CPUClassSeconds <= 0 {
		t.Errorf("seconds %v, cpu_class_seconds %v: want both above 0", g.Seconds, g.CPUClassSeconds)
	}
	if err := w.stop(); err != nil {
		t.Fatalf("a second stop: want nothing done, have %v", err)
	}
}

func readFigures(tb testing.TB, path string) gcFigures {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var g gcFigures
	if err := json.Unmarshal(b, &g); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return g
}

// TestSignalsOpenAndCloseTheWindow runs the real command: the profile
// appears on SIGUSR1, its GC figures on SIGUSR2, and SIGTERM then ends the
// process cleanly.
func TestSignalsOpenAndCloseTheWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs wraithprof")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build wraithprof with")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "wraithprof")
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ready, prof, gcstats := filepath.Join(dir, "ready.json"), filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "gc.json")
	cmd := exec.Command(bin, "checkout", "--port", "0", "--ready-json", ready,
		"--cpuprofile", prof, "--on-signal", "--gcstats", gcstats)
	cmd.Dir = dir
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	waitFile(t, ready, exited, dir)
	if _, err := os.Stat(prof); err == nil {
		t.Fatal("a profile before SIGUSR1")
	}
	cmd.Process.Signal(syscall.SIGUSR1)
	waitFile(t, prof, exited, dir)
	cmd.Process.Signal(syscall.SIGUSR2)
	waitFile(t, gcstats, exited, dir)
	if g := readFigures(t, gcstats); g.Seconds <= 0 {
		t.Errorf("seconds: want the window's length, have %v", g.Seconds)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		exited <- err // for the deferred wait
		if err != nil {
			b, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Fatalf("after SIGTERM: want a clean exit, have %v\n%s", err, b)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still running 20 s after SIGTERM")
	}
}

// waitFile waits for path to exist, failing if the process exits first or
// 20 s pass.
func waitFile(tb testing.TB, path string, exited chan error, dir string) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case err := <-exited:
			exited <- err
			b, _ := os.ReadFile(filepath.Join(dir, "log"))
			tb.Fatalf("exited before %s appeared: %v\n%s", filepath.Base(path), err, b)
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no %s after 20 s", filepath.Base(path))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
