package supervisor

import "os"

// WritesLog reports whether pid is a live wraith process whose standard
// output is the file at path: the background server that a
// .wraith/serve-PID.log names, still writing it. A pid read from a file
// name is a claim, so it is checked against the process: pid > 1, alive,
// wraith, and (where the system can tell, see procStdout) writing to that
// very file, so a reused pid does not keep a dead server's log. Where the
// output cannot be read, a live wraith process is taken at its word, and
// the log kept.
func WritesLog(pid int, path string) bool {
	if pid <= 1 || !pidAlive(pid) || !isWraith(pid) {
		return false
	}
	out, err := procStdout(pid)
	if err != nil {
		return true
	}
	fi, err := os.Stat(path)
	return err == nil && os.SameFile(out, fi)
}
