// Package ipc is the contract between a served twin and whoever started it:
// the ready document, its version, and how it travels.
//
// # Wire format
//
// A twin that has bound its listener and is serving publishes one ready
// document. (In this module the serve entry point that wraith serve and
// wraith-twin share writes it from what the server says of itself; no
// package under twin/ imports this one.) It is a single JSON object (see [Ready]) encoded on one line and
// terminated by "\n". It travels one of two ways:
//
//   - a file (--ready-json PATH), written atomically: the document goes to a
//     temporary file in the same folder, is synced, and is renamed over PATH,
//     so a reader never sees a partial document;
//   - an inherited descriptor (--ready-fd N), on which the child writes the
//     line once and then closes its end.
//
// The reader of a descriptor waits for the line with a deadline: a parent
// selects on [ReadReady]'s result, the child's exit and its deadline, and
// kills the child on every failure ([ReadLine] is the same read with only a
// deadline). `wraith up` run in the background writes one [Project] line
// the same way, versioned alike. A descriptor that closes without a full
// line, a line that is not a valid document, or a document with another
// major version is a failed start. The version is "wraith_ready_version"; readers accept any document
// whose version they know and reject others with a message naming both.
//
// A child started with --ready-fd whose standard input is a pipe (or a
// socket) also treats end-of-file on it as the parent's death and shuts
// down (see the supervisor package and [ParentPipe]): that is how children
// never outlive their supervisor on systems without Pdeathsig. Standard
// input that is /dev/null or a terminal says nothing about a parent, and
// the child serves until a signal.
//
// This package depends on the standard library only.
package ipc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Version is the version of the ready document this package writes.
const Version = 1

// SessionHeader is the request header that selects a session namespace,
// for clients that read no ready document (one names it in
// wraith_session_header). The twin reads the name from its own constant,
// engine.SessionHeader; a test of the serve entry point (internal/serve)
// holds this one equal to it.
const SessionHeader = "X-Wraith-Session"

// MaxLine bounds the ready line a reader accepts, so a misbehaving child
// cannot make its parent buffer without limit.
const MaxLine = 64 << 10

// Ready is the ready document.
type Ready struct {
	ReadyVersion  int    `json:"wraith_ready_version"`
	WraithVersion string `json:"wraith_version"`
	Serve         Serve  `json:"serve"`
}

// Serve describes one serving twin.
type Serve struct {
	Twin          string `json:"twin"`
	URL           string `json:"url"`
	Host          string `json:"host"`
	Port          int    `json:"port"`
	PID           int    `json:"pid"`
	SessionHeader string `json:"wraith_session_header"`
	// SessionSources lists where a request's session may be named:
	// "header", "path" (/__s/{session}/...) and "credential" (a key ending
	// in .wraith.{session}). Added within version 1: a reader that finds
	// it absent knows only the header.
	SessionSources []string `json:"session_sources,omitempty"`
	Digest         string   `json:"digest"`
	RecordedAt     string   `json:"recorded_at"`
	TwinAgeSeconds int64    `json:"twin_age_seconds"`
	Settings       Settings `json:"settings"`
	ControlAuth    string   `json:"control_auth"`
	Control        Control  `json:"control"`
	// State is the twin's state folder (--state-dir), absent when it
	// keeps its sessions in memory. Added within version 1.
	State *State `json:"state,omitempty"`
}

// State describes a twin's state folder.
type State struct {
	Dir string `json:"dir"`
	// RecoveredSessions is how many sessions the folder held when this
	// process started.
	RecoveredSessions int `json:"recovered_sessions"`
}

// Settings are the serve-wide settings a twin runs with. Pointers are
// settings that may be absent (null).
type Settings struct {
	Fixture       *string `json:"fixture"`
	Seed          uint64  `json:"seed"`
	Clock         string  `json:"clock"`
	ClockEpoch    *int64  `json:"clock_epoch"`
	ClockStep     string  `json:"clock_step"`
	UnknownEntity string  `json:"unknown_entity"`
	Validate      string  `json:"validate"`
	FaultProfile  *string `json:"fault_profile"`
	RateLimit     *string `json:"rate_limit"`
	Debug         bool    `json:"debug"`
	MaxSessions   int     `json:"max_sessions"`
	MaxEntities   int     `json:"max_entities"`
}

// Control lists the control-plane paths. {session} stands for a session id.
type Control struct {
	Health       string `json:"health"`
	Ready        string `json:"ready"`
	Info         string `json:"info"`
	Sessions     string `json:"sessions"`
	Session      string `json:"session"`
	SessionReset string `json:"session_reset"`
	SessionState string `json:"session_state"`
	SessionClock string `json:"session_clock"`
	Reset        string `json:"reset"`
	// UI is the session viewer, a page for a browser.
	UI string `json:"ui"`
	// What an agent did (added within version 1; absent from older
	// twins' documents).
	SessionJournal  string `json:"session_journal,omitempty"`
	SessionDigest   string `json:"session_digest,omitempty"`
	SessionDiff     string `json:"session_diff,omitempty"`
	SessionFork     string `json:"session_fork,omitempty"`
	SessionSnapshot string `json:"session_snapshot,omitempty"`
	Coverage        string `json:"coverage,omitempty"`
	Metrics         string `json:"metrics,omitempty"`
}

// ControlPaths returns the control paths every twin of this version serves.
func ControlPaths() Control {
	return Control{
		Health:       "/__wraith/health",
		Ready:        "/__wraith/ready",
		Info:         "/__wraith/info",
		Sessions:     "/__wraith/session",
		Session:      "/__wraith/session/{session}",
		SessionReset: "/__wraith/session/{session}/reset",
		SessionState: "/__wraith/session/{session}/state",
		SessionClock: "/__wraith/session/{session}/clock",
		Reset:        "/__wraith/reset",
		UI:           "/__wraith/ui",

		SessionJournal:  "/__wraith/session/{session}/journal",
		SessionDigest:   "/__wraith/session/{session}/digest",
		SessionDiff:     "/__wraith/session/{session}/diff",
		SessionFork:     "/__wraith/session/{session}/fork",
		SessionSnapshot: "/__wraith/session/{session}/snapshot",
		Coverage:        "/__wraith/coverage",
		Metrics:         "/__wraith/metrics",
	}
}

// Marshal encodes r as one line, newline included.
func Marshal(r Ready) ([]byte, error) {
	if r.ReadyVersion == 0 {
		r.ReadyVersion = Version
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode ready document: %w", err)
	}
	return append(b, '\n'), nil
}

// Unmarshal decodes and validates one ready document.
func Unmarshal(line []byte) (Ready, error) {
	var r Ready
	if err := json.Unmarshal(line, &r); err != nil {
		return Ready{}, fmt.Errorf("ready document is not valid JSON: %w", err)
	}
	if r.ReadyVersion != Version {
		return Ready{}, fmt.Errorf("ready document has version %d, this build reads version %d: use the same wraith build for parent and child", r.ReadyVersion, Version)
	}
	if r.Serve.URL == "" || r.Serve.Port <= 0 {
		return Ready{}, errors.New("ready document names no url or port")
	}
	return r, nil
}

// Write writes r as one line to w.
func Write(w io.Writer, r Ready) error {
	b, err := Marshal(r)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write ready document: %w", err)
	}
	return nil
}

// WriteFile writes r to path atomically: a temporary file in the same
// folder, synced, then renamed over path.
func WriteFile(path string, r Ready) error {
	b, err := Marshal(r)
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, b, 0o644)
}

// WriteFileAtomic writes data to path so that readers see either the old
// file or the whole new one, never a part.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w (does the folder exist and is it writable?)", path, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadFile reads and validates a ready document from a file.
func ReadFile(path string) (Ready, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Ready{}, err
	}
	return Unmarshal(b)
}

// ErrTimeout is returned by ReadLine when no line arrived in time.
var ErrTimeout = errors.New("timed out waiting for the ready line")

// ErrClosed is returned by ReadLine when the descriptor closed before a
// whole line arrived: the child exited or closed it without being ready.
var ErrClosed = errors.New("ready pipe closed before a ready line arrived (the child exited or failed to start)")

// ReadLine reads one ready line from r, waiting at most timeout. It returns
// ErrTimeout (wrapped) when the deadline passes, and ErrClosed when r
// closes first. The caller owns r and should close it after a timeout so
// the reading goroutine ends. A parent that also watches the child's exit
// reads with [ReadReady] in its own select instead.
func ReadLine(r io.Reader, timeout time.Duration) (Ready, error) {
	return withTimeout(func() (Ready, error) { return ReadReady(r) }, timeout)
}

// ReadReady reads one ready line from r, blocking until it arrives or r
// closes (ErrClosed), and validates it. It sets no deadline: the caller
// selects on its result, the child's exit and its own deadline, and closes
// r to end a read that is no longer wanted.
func ReadReady(r io.Reader) (Ready, error) {
	line, err := readLine(r)
	if err != nil {
		return Ready{}, err
	}
	return Unmarshal(line)
}

// withTimeout runs read in a goroutine and waits for it at most timeout.
func withTimeout[T any](read func() (T, error), timeout time.Duration) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := read()
		ch <- result{v, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case res := <-ch:
		return res.v, res.err
	case <-t.C:
		var zero T
		return zero, fmt.Errorf("%w after %s", ErrTimeout, timeout)
	}
}

// readLine reads one line of at most MaxLine bytes from r.
func readLine(r io.Reader) ([]byte, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, MaxLine+1), 4096)
	line, err := br.ReadBytes('\n')
	if err == nil {
		return line, nil
	}
	if errors.Is(err, io.EOF) {
		if len(line) > MaxLine {
			return nil, fmt.Errorf("ready line is longer than %d bytes", MaxLine)
		}
		return nil, ErrClosed
	}
	return nil, err
}
