package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
)

// window is one stretch of the run under the CPU profile. start opens it,
// stop closes it: the profile is written, then the GC figures of the same
// stretch. Both are safe to call from any goroutine, in any order and more
// than once: a start while open and a stop while closed do nothing, and a
// start after a stop begins a new window that overwrites the files.
type window struct {
	prof    string // CPU profile to write
	gcstats string // GC figures to write, as JSON; "" for none

	mu     sync.Mutex
	f      *os.File // the open profile; nil while closed
	t0     time.Time
	before gcSample
	ru0    syscall.Rusage
}

// start forces a collection, so that the GC figures begin from a fresh
// snapshot of the runtime's CPU classes (it takes one only at the end of
// each cycle) and the profile does not hold a cycle begun before it,
// then starts the CPU profile.
func (w *window) start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f != nil {
		return nil
	}
	runtime.GC()
	f, err := os.Create(w.prof)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("start the CPU profile: %w", err)
	}
	w.f, w.t0, w.before = f, time.Now(), readGC()
	syscall.Getrusage(syscall.RUSAGE_SELF, &w.ru0)
	return nil
}

// stop writes the profile and then the GC figures, the latter by rename,
// so that a reader who sees the JSON knows the profile is complete.
func (w *window) stop() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	after, took := readGC(), time.Since(w.t0)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	pprof.StopCPUProfile()
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return err
	}
	if w.gcstats == "" {
		return nil
	}
	fig := figures(w.before, after, took)
	fig.ProcessCPUSeconds = (tv(ru.Utime) + tv(ru.Stime)) - (tv(w.ru0.Utime) + tv(w.ru0.Stime))
	b, err := json.MarshalIndent(fig, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(w.gcstats), "."+filepath.Base(w.gcstats)+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, w.gcstats)
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// gcFigures is the JSON beside a profile: what garbage collection cost
// during its window. The CPU figures come from the runtime's own CPU
// classes (runtime/metrics), which it updates at the end of each cycle:
// they cover CPUClassSeconds, from the collection that opens the window
// to the last one that ended within it. They count the time of the runtime's Ps,
// busy while their thread runs or waits for a core, so on a machine with
// more runnable threads than cores CPUSeconds exceeds ProcessCPUSeconds;
// the fractions compare like with like. The CPU profile's own samples
// under the GC's goroutines are the other measure of its share.
type gcFigures struct {
	Seconds           float64 `json:"seconds"`             // the window's wall time
	ProcessCPUSeconds float64 `json:"process_cpu_seconds"` // user+system time of the process (getrusage)
	GCCycles          uint64  `json:"gc_cycles"`           // cycles completed in the window
	CPUClassSeconds   float64 `json:"cpu_class_seconds"`   // wall time the CPU classes below cover
	CPUSeconds        float64 `json:"cpu_seconds"`         // Go code and runtime, idle excluded
	GCCPUSeconds      float64 `json:"gc_cpu_seconds"`      // all of the GC: background marking, assists, pauses
	GCAssistSeconds   float64 `json:"gc_assist_seconds"`   // marking done by allocating goroutines, in their requests' time
	GCCPUFraction     float64 `json:"gc_cpu_fraction"`     // GCCPUSeconds / CPUSeconds
	GCAssistFraction  float64 `json:"gc_assist_fraction"`  // GCAssistSeconds / CPUSeconds
	GCPauses          uint64  `json:"gc_pauses"`           // stop-the-world pauses of the GC, each from stopping to restarting the world
	GCPausesOver1ms   uint64  `json:"gc_pauses_over_1ms"`  // the ones that stall every request in flight noticeably
	GCPauseP50Seconds float64 `json:"gc_pause_p50_seconds"`
	GCPauseMaxSeconds float64 `json:"gc_pause_max_seconds"`
	SchedLatencyP99   float64 `json:"sched_latency_p99_seconds"` // runnable → running, 99th percentile
	AllocBytes        uint64  `json:"alloc_bytes"`               // allocated in the window
	HeapLiveStart     uint64  `json:"heap_live_bytes_start"`     // live heap marked by the last cycle before the window
	HeapLiveEnd       uint64  `json:"heap_live_bytes_end"`
	HeapGoalEnd       uint64  `json:"heap_goal_bytes_end"`
	GOGCEnd           uint64  `json:"gogc_end"` // GOGC in force at the end (package gctune changes it)
}

// gcSample is what the runtime says of its collections at one moment.
type gcSample struct {
	cycles, allocs, live, goal, gogc uint64
	total, idle, gc, assist          float64 // CPU classes, seconds
	pauses, latencies                metrics.Float64Histogram
}

func readGC() gcSample {
	s := []metrics.Sample{
		{Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/heap/goal:bytes"},
		{Name: "/gc/gogc:percent"},
		{Name: "/cpu/classes/total:cpu-seconds"},
		{Name: "/cpu/classes/idle:cpu-seconds"},
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/cpu/classes/gc/mark/assist:cpu-seconds"},
		{Name: "/sched/pauses/total/gc:seconds"},
		{Name: "/sched/latencies:seconds"},
	}
	metrics.Read(s)
	u := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	f := func(i int) float64 {
		if s[i].Value.Kind() != metrics.KindFloat64 {
			return 0
		}
		return s[i].Value.Float64()
	}
	// A histogram's slices belong to s: copy them out.
	h := func(i int) metrics.Float64Histogram {
		if s[i].Value.Kind() != metrics.KindFloat64Histogram {
			return metrics.Float64Histogram{}
		}
		v := s[i].Value.Float64Histogram()
		return metrics.Float64Histogram{Counts: append([]uint64(nil), v.Counts...), Buckets: append([]float64(nil), v.Buckets...)}
	}
	return gcSample{cycles: u(0), allocs: u(1), live: u(2), goal: u(3), gogc: u(4),
		total: f(5), idle: f(6), gc: f(7), assist: f(8), pauses: h(9), latencies: h(10)}
}

// figures is what happened between a and b, took apart.
func figures(a, b gcSample, took time.Duration) gcFigures {
	cpu := (b.total - b.idle) - (a.total - a.idle)
	fig := gcFigures{
		Seconds:           took.Seconds(),
		GCCycles:          b.cycles - a.cycles,
		CPUClassSeconds:   (b.total - a.total) / float64(runtime.GOMAXPROCS(0)),
		CPUSeconds:        cpu,
		GCCPUSeconds:      b.gc - a.gc,
		GCAssistSeconds:   b.assist - a.assist,
		GCPauses:          count(&a.pauses, &b.pauses),
		GCPausesOver1ms:   countOver(&a.pauses, &b.pauses, 1e-3),
		GCPauseP50Seconds: quantile(&a.pauses, &b.pauses, 0.5),
		GCPauseMaxSeconds: quantile(&a.pauses, &b.pauses, 1),
		SchedLatencyP99:   quantile(&a.latencies, &b.latencies, 0.99),
		AllocBytes:        b.allocs - a.allocs,
		HeapLiveStart:     a.live,
		HeapLiveEnd:       b.live,
		HeapGoalEnd:       b.goal,
		GOGCEnd:           b.gogc,
	}
	if cpu > 0 {
		fig.GCCPUFraction = fig.GCCPUSeconds / cpu
		fig.GCAssistFraction = fig.GCAssistSeconds / cpu
	}
	return fig
}

// count is how many values b added to a.
func count(a, b *metrics.Float64Histogram) uint64 {
	if len(a.Counts) != len(b.Counts) {
		return 0
	}
	var n uint64
	for i := range b.Counts {
		n += b.Counts[i] - a.Counts[i]
	}
	return n
}

// countOver is how many values b added to a in buckets that start at or
// above min.
func countOver(a, b *metrics.Float64Histogram, min float64) uint64 {
	if len(a.Counts) != len(b.Counts) {
		return 0
	}
	var n uint64
	for i := range b.Counts {
		if b.Buckets[i] >= min {
			n += b.Counts[i] - a.Counts[i]
		}
	}
	return n
}

// quantile is the upper bound of the bucket holding the q-th quantile of
// the counts that b added to a (the lower bound when that one is +Inf).
func quantile(a, b *metrics.Float64Histogram, q float64) float64 {
	total := count(a, b)
	if total == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(total)))
	var cum uint64
	for i := range b.Counts {
		cum += b.Counts[i] - a.Counts[i]
		if cum >= want {
			if hi := b.Buckets[i+1]; !math.IsInf(hi, 1) {
				return hi
			}
			return b.Buckets[i]
		}
	}
	return 0
}
