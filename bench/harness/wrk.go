package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// wrkRun is one bounded wrk run.
type wrkRun struct {
	url      string
	threads  int
	conns    int
	duration time.Duration
	lua      string
	env      []string // WRK_* settings for bench/load.lua
}

// wrkResult is the line that load.lua's done() prints.
type wrkResult struct {
	Requests   int64   `json:"requests"`
	DurationUS int64   `json:"duration_us"`
	Bytes      int64   `json:"bytes"`
	Connect    int64   `json:"connect"`
	Read       int64   `json:"read"`
	Write      int64   `json:"write"`
	Status     int64   `json:"status"` // responses with status > 399
	Timeout    int64   `json:"timeout"`
	P50US      float64 `json:"p50_us"`
	P90US      float64 `json:"p90_us"`
	P99US      float64 `json:"p99_us"`
	MaxUS      float64 `json:"max_us"`
	MeanUS     float64 `json:"mean_us"`

	CPU  time.Duration `json:"-"` // wrk's own user+system time
	Wall time.Duration `json:"-"`
}

func (r wrkResult) rps() float64 {
	if r.DurationUS == 0 {
		return 0
	}
	return float64(r.Requests) / (float64(r.DurationUS) / 1e6)
}

// socketErrors are connect, read, write and timeout errors.
func (r wrkResult) socketErrors() int64 { return r.Connect + r.Read + r.Write + r.Timeout }

// run executes wrk, bounded by its -d and by a hard deadline beyond it.
func (w wrkRun) run(ctx context.Context) (wrkResult, error) {
	var res wrkResult
	ctx, cancel := context.WithTimeout(ctx, w.duration+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "wrk",
		"-t"+strconv.Itoa(w.threads), "-c"+strconv.Itoa(w.conns),
		"-d"+strconv.Itoa(int(w.duration.Seconds()))+"s",
		"--timeout", "5s", "-s", w.lua, w.url)
	cmd.Env = append(os.Environ(), w.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	res.Wall = time.Since(t0)
	if cmd.ProcessState != nil {
		res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		return res, fmt.Errorf("wrk -c%d %s: %w: %s", w.conns, w.url, err, strings.TrimSpace(errb.String()))
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "WRKJSON "); ok {
			if err := json.Unmarshal([]byte(rest), &res); err != nil { // keeps CPU and Wall
				return res, fmt.Errorf("wrk result %q: %w", rest, err)
			}
			return res, nil
		}
	}
	return res, fmt.Errorf("wrk printed no WRKJSON line (is %s the bench/load.lua script?):\n%s", w.lua, out.String())
}
