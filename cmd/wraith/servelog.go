package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/supervisor"
)

// The log of a server that serve --detach started is .wraith/serve-PID.log
// (serve-starting-*.log until the server's pid is known). The server
// removes it when it exits cleanly; a log it leaves (it failed, or was
// killed) is kept for reading until the next serve --detach in the folder
// prunes it.

// serveLogPID is the pid a serve-PID.log is named after, or 0 when name
// is not such a log.
func serveLogPID(name string) int {
	digits, ok := strings.CutPrefix(name, "serve-")
	if digits, ok = strings.CutSuffix(digits, ".log"); !ok || digits == "" || len(digits) > 10 {
		return 0
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0
		}
	}
	pid, err := strconv.Atoi(digits)
	if err != nil {
		return 0
	}
	return pid
}

// pruneServeLogs removes the serve-PID.log files in dir whose server is
// gone: the pid in the name is a claim, so a log is kept only while
// supervisor.WritesLog says a live wraith process writes it. Logs still
// being named (serve-starting-*) belong to a start under way and are left
// alone. Pruning is best effort: a log that cannot be removed stays.
func pruneServeLogs(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid := serveLogPID(e.Name())
		if pid == 0 || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !supervisor.WritesLog(pid, path) {
			os.Remove(path)
		}
	}
}

// removeOwnLog removes the log a background server was started with, at
// its clean exit: serve-PID.log under this pid, or the name it was created
// under if serve --detach had not renamed it yet. Only a file that is this
// process's standard output is removed, whatever the flag says.
func removeOwnLog(f *factory, created string) {
	out, ok := f.Stdout.(*os.File)
	if !ok {
		return
	}
	self, err := out.Stat()
	if err != nil {
		return
	}
	named := filepath.Join(filepath.Dir(created), fmt.Sprintf("serve-%d.log", os.Getpid()))
	for _, p := range []string{named, created} {
		if fi, err := os.Stat(p); err == nil && os.SameFile(fi, self) {
			os.Remove(p)
			return
		}
	}
}
