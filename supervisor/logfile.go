package supervisor

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
)

const (
	// LogMaxBytes is the size at which a twin's log file turns over:
	// NAME.log becomes NAME.log.1, .1 becomes .2 and so on.
	LogMaxBytes = 10 << 20
	// LogKeep is how many turned-over files are kept (NAME.log.1 to
	// NAME.log.LogKeep); the oldest is removed. A twin's logs take at most
	// (LogKeep+1) × LogMaxBytes on disk, plus one line.
	LogKeep = 3
)

// LogFile is a twin's log file that turns over by size, so that a twin
// that logs without end (a client missing in a loop) cannot fill the
// disk. Each Write is put whole in one file: hclog writes one line per
// call, so no line is split across two files, and a line longer than the
// limit gets a file of its own.
type LogFile struct {
	path string
	max  int64
	keep int

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenLogFile creates the log file at path, emptied, and removes the
// turned-over files an earlier run left (path.1 ... path.keep and one
// past), so that what is there is this run's. maxBytes and keep ≤ 0 mean
// LogMaxBytes and LogKeep.
func OpenLogFile(path string, maxBytes int64, keep int) (*LogFile, error) {
	if maxBytes <= 0 {
		maxBytes = LogMaxBytes
	}
	if keep <= 0 {
		keep = LogKeep
	}
	for i := 1; i <= keep+1; i++ {
		if err := os.Remove(RotatedLogPath(path, i)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove the old log %s: %w", RotatedLogPath(path, i), err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &LogFile{path: path, max: maxBytes, keep: keep, f: f}, nil
}

// RotatedLogPath is the n-th turned-over file of the log at path
// (path.n); n = 0 is path itself.
func RotatedLogPath(path string, n int) string {
	if n == 0 {
		return path
	}
	return path + "." + strconv.Itoa(n)
}

// Write appends p, turning the file over first when p would take it past
// the limit.
func (l *LogFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		if err := l.turnOver(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// turnOver shifts path.(keep-1) → path.keep ... path → path.1 and starts
// an empty path. The old file is closed before it is renamed, so a reader
// that sees a new file at path knows the one it has open is complete. A
// rename that fails leaves its file where it is, and writing goes on in
// the file at path: a log that cannot turn over keeps growing rather than
// losing lines, and the next write tries again.
func (l *LogFile) turnOver() error {
	l.f.Close()
	for i := l.keep; i > 0; i-- {
		os.Rename(RotatedLogPath(l.path, i-1), RotatedLogPath(l.path, i))
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		l.f = nil
		return fmt.Errorf("turn the log %s over: %w", l.path, err)
	}
	l.f, l.size = f, 0
	if fi, err := f.Stat(); err == nil {
		l.size = fi.Size()
	}
	return nil
}

// Close closes the file.
func (l *LogFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// LogFiles lists the files of the log at path that exist, oldest first:
// path.keep ... path.1, then path.
func LogFiles(path string) []string {
	var files []string
	for i := LogKeep; i >= 0; i-- {
		p := RotatedLogPath(path, i)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			files = append(files, p)
		}
	}
	return files
}
