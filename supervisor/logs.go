package supervisor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

const (
	// readBuffer is the read buffer for a child's output; longer lines
	// arrive in pieces and are joined up to maxLogLine.
	readBuffer = 64 << 10
	// maxLogLine bounds one joined line; the rest of a longer line is
	// dropped, and the line is logged with truncated=true.
	maxLogLine = 1 << 20
	// tailLines is how many of the last lines a ChildError carries.
	tailLines = 20
	// maxTailLine bounds one line kept for a ChildError.
	maxTailLine = 500
)

// forwarder re-logs a child's output line by line through hclog and keeps
// its last lines for error messages.
//
// hclog JSON lines (what wraith-twin writes with --log-format=json) are
// logged at their own level with their message and key-value pairs; the
// child's @module and @caller become "module" and "caller", its
// @timestamp is dropped (the parent stamps the line). Other lines keep
// the level of an hclog text marker ("[WARN]") when they have one; Go
// panics and fatal errors, and wraith-twin's messages written outside its
// logger ("wraith-twin: --ready-fd 9: ..."), are logged as errors;
// anything else at info.
type forwarder struct {
	logger hclog.Logger
	file   hclog.Logger // also receives every line when set
	r      *os.File
	done   chan struct{}

	mu   sync.Mutex
	last []string // ring of the last tailLines lines
	next int
}

func newForwarder(logger hclog.Logger, r *os.File) *forwarder {
	return &forwarder{logger: logger, r: r, done: make(chan struct{})}
}

func (f *forwarder) run() {
	defer close(f.done)
	defer f.r.Close()
	br := bufio.NewReaderSize(f.r, readBuffer)
	var long []byte // a line that came in pieces
	truncated := false
	for {
		piece, isPrefix, err := br.ReadLine()
		if err != nil {
			if len(long) > 0 {
				f.line(long, truncated)
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				f.logger.Error("reading child output", "error", err)
			}
			return
		}
		if isPrefix || long != nil {
			if len(long)+len(piece) <= maxLogLine {
				long = append(long, piece...)
			} else {
				truncated = true
			}
			if isPrefix {
				continue
			}
			piece, long = long, nil
		}
		f.line(piece, truncated)
		truncated = false
	}
}

// wait waits for the output to reach end-of-file, at most d; then it closes
// the pipe, which ends the reader.
func (f *forwarder) wait(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-f.done:
	case <-t.C:
		f.r.Close()
		<-f.done
	}
}

func (f *forwarder) line(b []byte, truncated bool) {
	b = bytes.TrimRight(b, "\r")
	if len(bytes.TrimSpace(b)) == 0 {
		return
	}
	level, msg, args := parseLine(b)
	if truncated {
		args = append(args, "truncated", true)
	}
	f.logger.Log(level, msg, args...)
	if f.file != nil {
		f.file.Log(level, msg, args...)
	}
	f.remember(level, msg, args)
}

func (f *forwarder) remember(level hclog.Level, msg string, args []any) {
	var sb strings.Builder
	if level != hclog.NoLevel {
		sb.WriteString("[" + strings.ToUpper(level.String()) + "] ")
	}
	sb.WriteString(msg)
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == "module" || args[i] == "caller" {
			continue // noise in an error message
		}
		sb.WriteString(" ")
		sb.WriteString(toString(args[i]))
		sb.WriteString("=")
		sb.WriteString(toString(args[i+1]))
	}
	s := sb.String()
	if len(s) > maxTailLine {
		s = s[:maxTailLine] + "…"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.last) < tailLines {
		f.last = append(f.last, s)
		return
	}
	f.last[f.next] = s
	f.next = (f.next + 1) % tailLines
}

// tail returns the last lines, oldest first.
func (f *forwarder) tail() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append(slices.Clone(f.last[f.next:]), f.last[:f.next]...)
}

func toString(v any) string {
	switch v := v.(type) {
	case string:
		if strings.ContainsAny(v, " \t\"=") {
			b, _ := json.Marshal(v)
			return string(b)
		}
		return v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return "?"
		}
		return string(b)
	}
}

// parseLine reads one line of child output.
func parseLine(b []byte) (hclog.Level, string, []any) {
	if b[0] == '{' {
		if level, msg, args, ok := parseJSONLine(b); ok {
			return level, msg, args
		}
	}
	s := string(b)
	if level, rest, ok := textLevel(s); ok {
		return level, rest, nil
	}
	// wraith-twin's own messages outside its logger are usage errors.
	if strings.HasPrefix(s, "panic: ") || strings.HasPrefix(s, "fatal error: ") || strings.HasPrefix(s, "wraith-twin: ") {
		return hclog.Error, s, nil
	}
	return hclog.Info, s, nil
}

// parseJSONLine reads an hclog JSON line. Lines without "@message" are not
// hclog's and are logged verbatim instead.
func parseJSONLine(b []byte) (hclog.Level, string, []any, bool) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || dec.More() {
		return 0, "", nil, false
	}
	msg, ok := m["@message"].(string)
	if !ok {
		return 0, "", nil, false
	}
	level := hclog.Info
	if l, ok := m["@level"].(string); ok {
		if lv := hclog.LevelFromString(l); lv != hclog.NoLevel {
			level = lv
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		switch k {
		case "@message", "@level", "@timestamp":
		default:
			keys = append(keys, k)
		}
	}
	name := func(k string) string { return strings.TrimPrefix(k, "@") }
	slices.SortFunc(keys, func(a, b string) int { return strings.Compare(name(a), name(b)) })
	args := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		args = append(args, name(k), m[k])
	}
	return level, msg, args, true
}

// textLevel finds an hclog text marker such as "[WARN]" near the start of
// a line (after the timestamp hclog puts first) and returns the rest.
func textLevel(s string) (hclog.Level, string, bool) {
	head := s
	if len(head) > 48 {
		head = head[:48]
	}
	for _, m := range []struct {
		marker string
		level  hclog.Level
	}{{"[TRACE]", hclog.Trace}, {"[DEBUG]", hclog.Debug}, {"[INFO]", hclog.Info}, {"[WARN]", hclog.Warn}, {"[ERROR]", hclog.Error}} {
		if i := strings.Index(head, m.marker); i >= 0 {
			return m.level, strings.TrimSpace(s[i+len(m.marker):]), true
		}
	}
	return 0, "", false
}
