package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/manifest"
	"github.com/wraithdev/wraith/supervisor"
)

// logsOptions is what `wraith logs` runs with.
type logsOptions struct {
	Name   string
	Follow bool
	File   string
	// Poll is how often follow mode looks for new lines and checks that
	// the supervisor still runs.
	Poll time.Duration
	f    *factory
}

func newLogsCmd(f *factory, runF func(context.Context, *logsOptions) error) *cobra.Command {
	opts := &logsOptions{f: f, Poll: 200 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "logs [NAME]",
		Short: "Show the logs of the twins that wraith up runs in this folder",
		Long: `Show the logs the supervisor keeps for each twin of the project in this
folder (.wraith/logs/NAME.log, rewritten by each wraith up and kept after
wraith down; at 10 MiB it turns over into NAME.log.1, up to .3, which are
printed first, oldest first). Without NAME, every twin's lines, each
prefixed by the twin's name. With -f, keep printing new lines until SIGINT
or until the supervisor stops.`,
		Example: `  wraith logs billing
  wraith logs -f`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runLogs(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Follow, "follow", "f", false, "keep printing new lines until SIGINT or until the supervisor stops")
	cmd.Flags().StringVar(&opts.File, "file", "", "project manifest, to find the project's folder (default ./"+manifest.DefaultFile+")")
	return cmd
}

// logSource is one twin's log being read: NAME.log, and the files it
// turns over into (NAME.log.1, .2...; see supervisor.LogFile).
type logSource struct {
	name    string
	path    string
	file    *os.File // NAME.log as it was when opened
	partial []byte   // the start of a line not yet ended
}

func runLogs(ctx context.Context, opts *logsOptions) error {
	path, err := manifestPath(opts.f, opts.File)
	if err != nil {
		return err
	}
	dir := logDir(filepath.Dir(path))
	names, err := logNames(dir)
	if err != nil {
		return err
	}
	if opts.Name != "" {
		if !slices.Contains(names, opts.Name) {
			if len(names) == 0 {
				return usagef("no log for twin %q in %s: start the project with wraith up first", opts.Name, dir)
			}
			return usagef("no log for twin %q in %s; twins with logs: %s", opts.Name, dir, strings.Join(names, ", "))
		}
		names = []string{opts.Name}
	} else if len(names) == 0 {
		return fmt.Errorf("no twin logs in %s: start the project with wraith up first", dir)
	}
	var srcs []*logSource
	defer func() {
		for _, s := range srcs {
			s.file.Close()
		}
	}()
	out := bufio.NewWriter(opts.f.Stdout)
	defer out.Flush()
	prefix := len(names) > 1
	for _, n := range names {
		s := &logSource{name: n, path: supervisor.LogPath(dir, n)}
		if err := s.open(out, prefix); err != nil {
			return err
		}
		srcs = append(srcs, s)
	}
	copyNew := func(final bool) error {
		for _, s := range srcs {
			if err := s.copyLines(out, prefix, final); err != nil {
				return err
			}
		}
		return out.Flush()
	}
	if !opts.Follow {
		return copyNew(true)
	}
	projectDir := filepath.Dir(path)
	t := time.NewTicker(opts.Poll)
	defer t.Stop()
	for {
		if err := copyNew(false); err != nil {
			return err
		}
		if _, err := supervisor.Probe(projectDir); err != nil {
			var starting *supervisor.StartingError
			if !errors.As(err, &starting) {
				// The supervisor is gone: what it wrote last is in the
				// files now.
				return copyNew(true)
			}
		}
		select {
		case <-ctx.Done():
			return copyNew(true)
		case <-t.C:
		}
	}
}

// open opens NAME.log and writes the files it turned over into before,
// oldest first.
func (s *logSource) open(w io.Writer, prefix bool) error {
	fh, err := os.Open(s.path)
	if err != nil {
		return err
	}
	s.file = fh
	fi, err := fh.Stat()
	if err != nil {
		return err
	}
	older := s.turnedOver(fi)
	for i := supervisor.LogKeep; i > older; i-- {
		if err := s.copyFile(w, supervisor.RotatedLogPath(s.path, i), prefix); err != nil {
			return err
		}
	}
	return nil
}

// turnedOver returns n when the file fi is now NAME.log.n: 0 while it is
// still NAME.log, and past supervisor.LogKeep when it is gone.
func (s *logSource) turnedOver(fi os.FileInfo) int {
	for i := 0; i <= supervisor.LogKeep; i++ {
		if have, err := os.Stat(supervisor.RotatedLogPath(s.path, i)); err == nil && os.SameFile(fi, have) {
			return i
		}
	}
	return supervisor.LogKeep + 1
}

// copyFile writes the lines of the turned-over file at path, if it is
// there.
func (s *logSource) copyFile(w io.Writer, path string, prefix bool) error {
	fh, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer fh.Close()
	return s.copyFrom(fh, w, prefix, false)
}

// follow moves on to the new NAME.log once the supervisor has turned the
// one open over: the rest of the open file, then the files turned over
// since, then the new NAME.log. The supervisor closes a file before it
// renames it, so a file no longer at NAME.log has all its lines.
func (s *logSource) follow(w io.Writer, prefix bool) error {
	fi, err := s.file.Stat()
	if err != nil {
		return err
	}
	now, err := os.Stat(s.path)
	if err != nil || os.SameFile(fi, now) {
		return nil // not turned over, or mid-turn: look again next time
	}
	if err := s.copyFrom(s.file, w, prefix, false); err != nil {
		return err
	}
	at := s.turnedOver(fi)
	s.file.Close()
	for i := at - 1; i > 0; i-- {
		if err := s.copyFile(w, supervisor.RotatedLogPath(s.path, i), prefix); err != nil {
			return err
		}
	}
	fh, err := os.Open(s.path)
	if err != nil {
		return err
	}
	s.file = fh
	return nil
}

// copyLines writes the whole lines added to s since the last call; final
// also writes a last line that has no newline yet. While following, it
// moves on when the log turns over.
func (s *logSource) copyLines(w io.Writer, prefix bool, final bool) error {
	if err := s.follow(w, prefix); err != nil {
		return fmt.Errorf("read the log of twin %s: %w", s.name, err)
	}
	return s.copyFrom(s.file, w, prefix, final)
}

// copyFrom writes the whole lines r has; final also writes a last line
// that has no newline yet, and otherwise it waits for the rest of it.
func (s *logSource) copyFrom(r io.Reader, w io.Writer, prefix bool, final bool) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read the log of twin %s: %w", s.name, err)
	}
	b = append(s.partial, b...)
	s.partial = nil
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if !final {
				s.partial = b
				return nil
			}
			i = len(b) - 1
			b = append(b, '\n')
		}
		if prefix {
			fmt.Fprintf(w, "%s | ", s.name)
		}
		if _, err := w.Write(b[:i+1]); err != nil {
			return err
		}
		b = b[i+1:]
	}
	return nil
}

// logNames lists the twins with a log file in dir, sorted.
func logNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".log"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}
