package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// lines writes the run in Go's benchmark format, one line per server, load
// and pass, with custom units, so that benchstat computes the medians,
// confidence intervals and ratios between servers:
//
//	BenchmarkLoad/server=wraith-one/load=get-c32 358000 35800 req/s 0.69 p50-ms 6.98 p99-ms 29.5 cpu-us/op 30.3 peak-rss-MiB 0 non2xx 0 sock-errors 0.03 other-cores
//	BenchmarkStart/server=serve-stripe 1 54.7 ready-ms 55.1 answer-ms 15.0 idle-rss-MiB
//	BenchmarkHold/server=wraith-256s 500000 390 rss-B/entity 201.3 peak-rss-MiB 15.1 idle-rss-MiB 180.2 rss-MiB 21000 creates/s 0 non2xx 0 sock-errors
//
// A load's iteration count is its request count, so "/op" means "per
// request"; a memory load's is the entities it left the process holding. Notes (a server that did not start, a peer whose answer is
// not Wraith's bytes) are "# " lines, which benchstat skips, and also go
// to standard error as the run goes.
type lines struct {
	w   io.Writer
	err error // the first write error; later writes are skipped
}

func newLines(w io.Writer) *lines { return &lines{w: w} }

func (l *lines) printf(format string, a ...any) {
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format, a...)
	}
}

// header writes the configuration lines benchstat shows above its tables
// ("key: value"); they must not change within a run, or benchstat splits
// its tables.
func (l *lines) header(cfg benchConfig) {
	l.printf("goos: %s\ngoarch: %s\n", runtime.GOOS, runtime.GOARCH)
	if cpu := cpuModel(); cpu != "" {
		l.printf("cpu: %s\n", cpu)
	}
	for _, m := range cfg.meta {
		l.printf("%s\n", m)
	}
	l.printf("load-duration: %s\nwrk-threads: %d\nwarmup: %s\n", cfg.duration, cfg.wrkThreads, cfg.warmup)
	if cfg.hold > 0 {
		l.printf("memory-load: %d creates over %d connections\n", cfg.hold, cfg.holdConns)
	}
}

func (l *lines) start(st startResult) {
	var b strings.Builder
	fmt.Fprintf(&b, "BenchmarkStart/server=%s 1", st.Server)
	if st.Ready > 0 {
		fmt.Fprintf(&b, " %.1f ready-ms", ms(st.Ready))
	}
	fmt.Fprintf(&b, " %.1f answer-ms %.1f idle-rss-MiB", ms(st.Answer), mib(st.IdleRSS))
	if st.SeededRSS > 0 {
		fmt.Fprintf(&b, " %.1f seeded-rss-MiB %.0f seed-ms", mib(st.SeededRSS), ms(st.Seed))
	}
	l.printf("%s\n", b.String())
	fmt.Fprintf(os.Stderr, "   %s\n", b.String())
	if st.Compare && !st.SameBytes {
		l.note("%s, pass %d: its first GET answer is not Wraith's bytes", st.Server, st.Pass)
	}
	if st.PeakIsLifetime {
		l.note("%s, pass %d: /proc/PID/clear_refs was refused, so its peak-rss-MiB figures are peaks since start", st.Server, st.Pass)
	}
}

func (l *lines) load(r loadResult) {
	line := fmt.Sprintf("BenchmarkLoad/server=%s/load=%s %d %.0f req/s %.3f p50-ms %.3f p99-ms %.2f cpu-us/op %.1f peak-rss-MiB %d non2xx %d sock-errors %.2f other-cores",
		r.Server, r.Load, max(r.Requests, 1), r.RPS, r.P50/1000, r.P99/1000, r.CPUPerReq, mib(r.PeakRSS), r.Non2xx, r.Errors, r.OtherCores)
	l.printf("%s\n", line)
	fmt.Fprintf(os.Stderr, "   %s\n", line)
}

func (l *lines) hold(r holdResult) {
	rate := 0.0
	if r.Took > 0 {
		rate = float64(r.Entities) / r.Took.Seconds()
	}
	line := fmt.Sprintf("BenchmarkHold/server=%s %d %.0f rss-B/entity %.1f peak-rss-MiB %.1f idle-rss-MiB %.1f rss-MiB %.0f creates/s %d non2xx %d sock-errors",
		r.Server, max(r.Entities, 1), r.perEntity(), mib(r.PeakRSS), mib(r.IdleRSS), mib(r.RSS), rate, r.Non2xx, r.Errors)
	l.printf("%s\n", line)
	fmt.Fprintf(os.Stderr, "   %s\n", line)
}

func (l *lines) note(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	msg = strings.ReplaceAll(msg, "\n", " ")
	l.printf("# note: %s\n", msg)
	fmt.Fprintf(os.Stderr, "   note: %s\n", msg)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mib(kib int64) float64      { return float64(kib) / 1024 }

// cpuModel is /proc/cpuinfo's first "model name", as go test prints it.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
