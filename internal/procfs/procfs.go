// Package procfs reads the fields of Linux's /proc/PID/stat that wraith
// uses: the supervisor's process identity (start time) and the benchmark
// harness's CPU time. Standard library only; elsewhere than Linux every
// read fails, and callers treat that as "unknown".
package procfs

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Stat returns the fields of /proc/PID/stat from field 3 (state) on, so
// field n of proc(5) is Stat(pid)[n-3]. The command name before them is in
// parentheses and may contain anything, spaces and parentheses included,
// so the fields start after the last ')'.
func Stat(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name in parentheses", pid)
	}
	return strings.Fields(string(b[i+1:])), nil
}

// field returns field n (as proc(5) numbers them) of pid's stat.
func field(pid, n int) (string, error) {
	f, err := Stat(pid)
	if err != nil {
		return "", err
	}
	if len(f) <= n-3 {
		return "", fmt.Errorf("/proc/%d/stat: %d fields, want field %d", pid, len(f)+2, n)
	}
	return f[n-3], nil
}

// StartTime is when pid started, in clock ticks since boot (field 22).
// With the pid, it names one process for the machine's uptime.
func StartTime(pid int) (uint64, error) {
	v, err := field(pid, 22)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(v, 10, 64)
}

// CPUTicks is pid's user plus system CPU time in clock ticks (fields 14
// and 15), over all its threads, live and exited.
func CPUTicks(pid int) (int64, error) {
	f, err := Stat(pid)
	if err != nil {
		return 0, err
	}
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields, want field 15", pid, len(f)+2)
	}
	u, err := strconv.ParseInt(f[11], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime: %w", pid, err)
	}
	s, err := strconv.ParseInt(f[12], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: stime: %w", pid, err)
	}
	return u + s, nil
}
