package main

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// medians answers "the median over passes" for every figure the report
// shows; a figure no pass measured is NaN.
type medians struct{ d *runData }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// load is the median over the undisturbed passes of a load, or over all
// its passes when every one was disturbed.
func (m medians) load(server, load string, f func(loadResult) float64) float64 {
	var clean, all []float64
	for _, l := range m.d.Loads {
		if l.Server == server && l.Load == load {
			all = append(all, f(l))
			if !l.Disturbed {
				clean = append(clean, f(l))
			}
		}
	}
	if len(clean) > 0 {
		return median(clean)
	}
	return median(all)
}

func (m medians) start(server string, f func(startResult) float64) float64 {
	var xs []float64
	for _, s := range m.d.Starts {
		if s.Server == server && s.Answer > 0 {
			xs = append(xs, f(s))
		}
	}
	return median(xs)
}

// peak is the median over passes of the highest VmHWM among the loads
// whose name has the prefix ("" for all loads).
func (m medians) peak(server, prefix string) float64 {
	per := map[int]float64{}
	for _, l := range m.d.Loads {
		if l.Server == server && strings.HasPrefix(l.Load, prefix) {
			per[l.Pass] = math.Max(per[l.Pass], float64(l.PeakRSS))
		}
	}
	var xs []float64
	for _, v := range per {
		xs = append(xs, v)
	}
	return median(xs)
}

// failures sums non-2xx responses and socket errors of a server over every
// load of every pass.
func (m medians) failures(server string) (non2xx, errs int64, loads int) {
	for _, l := range m.d.Loads {
		if l.Server == server {
			non2xx += l.Non2xx
			errs += l.Errors
			loads++
		}
	}
	return
}

func (m medians) startErrors(server string) []string {
	var out []string
	for _, s := range m.d.Starts {
		if s.Server == server && s.Err != "" {
			out = append(out, fmt.Sprintf("pass %d: %s", s.Pass, s.Err))
		}
	}
	return out
}

func rpsOf(l loadResult) float64 { return l.RPS }
func p50Of(l loadResult) float64 { return l.P50 }
func p99Of(l loadResult) float64 { return l.P99 }
func cpuOf(l loadResult) float64 { return l.CPUPerReq }
func reqOf(l loadResult) float64 { return float64(l.Requests) }

// Formatting. Every function prints "—" for a figure that was not measured.

func na(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

func fRPS(x float64) string {
	if na(x) {
		return "—"
	}
	return fmt.Sprintf("%.1fk/s", x/1000)
}

func fUS(x float64) string {
	switch {
	case na(x):
		return "—"
	case x >= 1000:
		return fmt.Sprintf("%.2f ms", x/1000)
	default:
		return fmt.Sprintf("%.0f µs", x)
	}
}

func fCPU(x float64) string {
	if na(x) {
		return "—"
	}
	return fmt.Sprintf("%.1f µs", x)
}

func fMiB(kib float64) string {
	if na(kib) || kib == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f MiB", kib/1024)
}

func fMs(d float64) string {
	if na(d) || d == 0 {
		return "—"
	}
	if d >= 1000 {
		return fmt.Sprintf("%.2f s", d/1000)
	}
	return fmt.Sprintf("%.1f ms", d)
}

func fPct(r float64) string {
	if na(r) {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*r)
}

func fX(r float64) string {
	if na(r) {
		return "—"
	}
	return fmt.Sprintf("%.2f×", r)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// machine describes the host for the report's header.
func machine() []string {
	out := []string{fmt.Sprintf("cores (nproc): %d", runtime.NumCPU())}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				out = append(out, "CPU: "+strings.TrimSpace(v))
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		out = append(out, "kernel: Linux "+strings.TrimSpace(string(b)))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && k == "MemTotal" {
				f := strings.Fields(v)
				if n, err := strconv.ParseFloat(f[0], 64); err == nil {
					out = append(out, fmt.Sprintf("memory: %.1f GiB", n/1024/1024))
				}
			}
		}
	}
	return out
}

// benchMetric finds `value unit` on the go test output lines of the named
// benchmark and returns the median over them.
func benchMetric(path, bench, unit string) float64 {
	if path == "" {
		return math.NaN()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return math.NaN()
	}
	re := regexp.MustCompile(`([0-9.]+) ` + regexp.QuoteMeta(unit) + `(\s|$)`)
	var xs []float64
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, bench+"-") && !strings.HasPrefix(line, bench+" ") && !strings.HasPrefix(line, bench+"\t") {
			continue
		}
		if m := re.FindStringSubmatch(line); m != nil {
			// A heap that shrank during the benchmark underflows to ~1.8e19.
			if x, err := strconv.ParseFloat(m[1], 64); err == nil && x < 1e15 {
				xs = append(xs, x)
			}
		}
	}
	return median(xs)
}
