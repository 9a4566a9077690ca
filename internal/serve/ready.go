package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/server"
)

// readyDoc is the server's Publisher: it writes the ready document of
// package ipc where the flags ask, to the file of --ready-json and as one
// line on the descriptor of --ready-fd. The server says when it serves;
// what the document holds, how it travels and the process's own facts
// (pid, version) are the program's.
type readyDoc struct {
	path    string    // --ready-json; "" for none
	fd      io.Writer // --ready-fd; nil for none
	version string
	log     hclog.Logger
	// wrote is the document as written to path, so that at exit the file
	// is removed only while it is still ours.
	wrote []byte
}

// document is the ready document of a twin that says in of itself.
func (r *readyDoc) document(in server.Info) ipc.Ready {
	at := ""
	if !in.RecordedAt.IsZero() {
		at = in.RecordedAt.UTC().Format(time.RFC3339)
	}
	var state *ipc.State
	if in.StateDir != "" {
		state = &ipc.State{Dir: in.StateDir, RecoveredSessions: in.Recovered}
	}
	return ipc.Ready{
		ReadyVersion:  ipc.Version,
		WraithVersion: r.version,
		Serve: ipc.Serve{
			Twin:           in.Twin,
			URL:            in.URL,
			Host:           in.Host,
			Port:           in.Port,
			PID:            os.Getpid(),
			SessionHeader:  in.SessionHeader,
			SessionSources: in.SessionSources,
			Digest:         in.Digest,
			RecordedAt:     at,
			TwinAgeSeconds: in.TwinAgeSeconds,
			// The same fields in the same order, so the compiler checks
			// the two stay in step; TestReadyDocumentGolden checks the
			// tags against /__wraith/info's.
			Settings:    ipc.Settings(in.Settings),
			ControlAuth: in.ControlAuth,
			Control:     ipc.ControlPaths(),
			State:       state,
		},
	}
}

// Publish writes the ready document: the file first, then the line a
// parent may be waiting on.
func (r *readyDoc) Publish(in server.Info) error {
	doc := r.document(in)
	if r.path != "" {
		b, err := ipc.Marshal(doc)
		if err != nil {
			return err
		}
		if err := ipc.WriteFileAtomic(r.path, b, 0o644); err != nil {
			return err
		}
		r.wrote = b
	}
	if r.fd != nil {
		if err := ipc.Write(r.fd, doc); err != nil {
			// Whoever waits for the line would wait in vain: stop now.
			return fmt.Errorf("--ready-fd: %w: the parent closed its end of the descriptor or went away, so nobody can learn that this twin serves; stopping", err)
		}
		if c, ok := r.fd.(io.Closer); ok {
			c.Close()
		}
	}
	return nil
}

// Withdraw removes the ready document at exit, unless another process has
// since written its own there.
func (r *readyDoc) Withdraw() {
	if r.wrote == nil {
		return
	}
	if b, err := os.ReadFile(r.path); err != nil || !bytes.Equal(b, r.wrote) {
		return
	}
	if err := os.Remove(r.path); err != nil {
		r.log.Warn("could not remove the ready document", "path", r.path, "error", err)
	}
}

// removeStale removes a ready document an earlier run left at path,
// before anything binds: a script that waits for the file must never read
// a dead server's URL.
func removeStale(path string) error {
	if path == "" {
		return nil
	}
	err := os.Remove(path)
	if err == nil || errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("--ready-json %s: remove the ready document an earlier run left: %w", path, err)
}
