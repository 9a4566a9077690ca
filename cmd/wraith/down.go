package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/manifest"
	"github.com/wraithdev/wraith/supervisor"
)

// downOptions is what `wraith down` runs with.
type downOptions struct {
	File    string
	Timeout time.Duration
	f       *factory
}

func newDownCmd(f *factory, runF func(context.Context, *downOptions) error) *cobra.Command {
	opts := &downOptions{f: f}
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Stop the project that wraith up runs in this folder",
		Long: `Stop the project that wraith up runs in this folder (or -f FILE's folder):
SIGTERM to its supervisor, which drains and stops every twin and removes
.wraith/up.json; down waits until it is gone. If it is still running after
--timeout, down kills it (its twins die with it) and exits 1.

down signals only the live wraith process that holds the project's lock.
If .wraith/up.json is cut short or corrupt, down finds that process through
the lock and stops it. If up.json names any other process (not wraith, not
the lock's holder, a pid of 1 or less), down signals nothing and exits 1.

Nothing up: down says so and exits 0, so trap 'wraith down' EXIT is safe
in a script whether or not the project came up. A stale .wraith/up.json
(its supervisor was killed): down removes it and exits 0. A project that
stops while down looks at it (another wraith down stopped it): down waits
until its supervisor has exited, says it is already stopped and exits 0.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDown(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "project manifest, to find the project's folder (default ./"+manifest.DefaultFile+")")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 30*time.Second, "how long to wait for the project to stop before killing it")
	return cmd
}

func (o *downOptions) check() error {
	if o.Timeout <= 0 {
		return usagef("--timeout must be positive, got %s", o.Timeout)
	}
	return nil
}

func runDown(ctx context.Context, opts *downOptions) error {
	path, err := manifestPath(opts.f, opts.File)
	if err != nil {
		return err
	}
	st, err := supervisor.Down(ctx, filepath.Dir(path), opts.Timeout)
	var (
		notUp      *supervisor.NotUpError
		stale      *supervisor.StaleError
		unreadable *supervisor.UnreadableError
		stopped    *supervisor.StoppedError
	)
	switch {
	case errors.As(err, &notUp):
		fmt.Fprintf(opts.f.Stdout, "nothing is up here (no %s): nothing to stop\n", filepath.Join(supervisor.StateDir, "up.json"))
		return nil
	case errors.As(err, &stale):
		fmt.Fprintf(opts.f.Stdout, "nothing was running: removed a stale %s from pid %d (its twins died with it)\n",
			filepath.Join(supervisor.StateDir, "up.json"), stale.PID)
		return nil
	case errors.As(err, &stopped):
		fmt.Fprintf(opts.f.Stdout, "already stopped: the project in %s stopped while down looked at it (supervisor pid %d; another wraith down stopped it, or it exited): nothing to stop\n",
			stopped.Dir, stopped.PID)
		return nil
	case errors.As(err, &unreadable) && unreadable.Holder == 0:
		fmt.Fprintf(opts.f.Stdout, "nothing was running: removed an unreadable %s (%v)\n",
			filepath.Join(supervisor.StateDir, "up.json"), unreadable.Err)
		return nil
	case err != nil:
		return err
	case st.Project == "":
		fmt.Fprintf(opts.f.Stdout, "stopped the project in %s through its lock (supervisor pid %d)\n", st.Dir, st.SupervisorPID)
	default:
		fmt.Fprintf(opts.f.Stdout, "stopped project %s (%d twins, supervisor pid %d)\n", st.Project, len(st.Twins), st.SupervisorPID)
	}
	return nil
}
