package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/manifest"
	"github.com/wraithdev/wraith/supervisor"
)

// statusOptions is what `wraith status` runs with.
type statusOptions struct {
	Format  string
	File    string
	Timeout time.Duration
	f       *factory
	now     func() time.Time
}

func newStatusCmd(f *factory, runF func(context.Context, *statusOptions) error) *cobra.Command {
	opts := &statusOptions{f: f, now: time.Now}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Describe the project that wraith up runs in this folder",
		Long: `Describe the project that wraith up runs in this folder: per twin its pid,
port, uptime (since its current process became ready), restarts, the
sessions its state folder held when its current process started (a twin
with state_dir; - for one without), and a live health probe
(GET /__wraith/health). Exit 0 when every twin is healthy, 1
when one is not, while the project is starting, or when no project is up.
It trusts .wraith/up.json only when the live wraith process holding the
project's lock is the one it names, and says what it found otherwise.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runStatus(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "project manifest, to find the project's folder (default ./"+manifest.DefaultFile+")")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 2*time.Second, "health probe timeout per twin")
	return cmd
}

type statusDoc struct {
	Project       string       `json:"project"`
	Dir           string       `json:"dir"`
	SupervisorPID int          `json:"supervisor_pid"`
	UptimeSeconds int64        `json:"uptime_seconds"`
	Twins         []statusTwin `json:"twins"`
}

type statusTwin struct {
	Name          string `json:"name"`
	Status        string `json:"status"`
	PID           int    `json:"pid"`
	Port          int    `json:"port"`
	URL           string `json:"url"`
	UptimeSeconds int64  `json:"uptime_seconds"`
	Restarts      int    `json:"restarts"`
	// StateDir and Recovered are the twin's state folder and the sessions
	// it held at the current process's start; absent without state_dir.
	StateDir  string `json:"state_dir,omitempty"`
	Recovered *int   `json:"recovered_sessions,omitempty"`
	Health    string `json:"health"` // "ok" or why not
}

func (o *statusOptions) check() error {
	if o.Format != "text" && o.Format != "json" {
		return usagef("--format must be text or json, got %q", o.Format)
	}
	if o.Timeout <= 0 {
		return usagef("--timeout must be positive, got %s", o.Timeout)
	}
	return nil
}

func runStatus(ctx context.Context, opts *statusOptions) error {
	st, err := probeProject(opts.f, opts.File)
	var starting *supervisor.StartingError
	if err != nil && !errors.As(err, &starting) {
		return err
	}
	now := opts.now()
	doc := statusDoc{Project: st.Project, Dir: st.Dir, SupervisorPID: st.SupervisorPID, UptimeSeconds: int64(now.Sub(st.StartedAt).Seconds())}
	doc.Twins = make([]statusTwin, len(st.Twins))
	client := &http.Client{Timeout: opts.Timeout}
	var wg sync.WaitGroup
	for i, t := range st.Twins {
		s := t.Ready.Serve
		doc.Twins[i] = statusTwin{Name: t.Name, Status: t.Status, PID: s.PID, Port: s.Port, URL: s.URL, Restarts: t.Restarts}
		if st := s.State; st != nil {
			n := st.RecoveredSessions
			doc.Twins[i].StateDir, doc.Twins[i].Recovered = st.Dir, &n
		}
		if t.Status == supervisor.StatusReady {
			doc.Twins[i].UptimeSeconds = int64(now.Sub(t.ReadyAt).Seconds())
		}
		if t.Status == supervisor.StatusStarting {
			doc.Twins[i].Health = "-" // no address yet
			continue
		}
		wg.Go(func() { doc.Twins[i].Health = probeHealth(ctx, client, s.URL+s.Control.Health) })
	}
	wg.Wait()

	if opts.Format == "json" {
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		opts.f.Stdout.Write(append(b, '\n'))
	} else {
		writeStatusText(opts.f.Stdout, doc)
	}
	if starting != nil {
		fmt.Fprintf(opts.f.Stderr, "wraith: %v\n", starting)
		return &silentError{code: exitRuntime}
	}
	unhealthy := 0
	for _, t := range doc.Twins {
		if t.Health != "ok" {
			unhealthy++
		}
	}
	if unhealthy > 0 {
		fmt.Fprintf(opts.f.Stderr, "wraith: %d of %d twins are not healthy\n", unhealthy, len(doc.Twins))
		return &silentError{code: exitRuntime}
	}
	return nil
}

func probeHealth(ctx context.Context, c *http.Client, url string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err.Error()
	}
	resp, err := c.Do(req)
	if err != nil {
		return "unreachable"
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("http %d", resp.StatusCode)
	}
	return "ok"
}

func writeStatusText(w io.Writer, doc statusDoc) {
	fmt.Fprintf(w, "project %s in %s: supervisor pid %d, up %s\n", doc.Project, doc.Dir, doc.SupervisorPID, seconds(doc.UptimeSeconds))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TWIN\tSTATUS\tPID\tPORT\tUPTIME\tRESTARTS\tRECOVERED\tHEALTH\tURL")
	for _, t := range doc.Twins {
		up := "-"
		if t.Status == supervisor.StatusReady {
			up = seconds(t.UptimeSeconds)
		}
		recovered := "-"
		if t.Recovered != nil {
			recovered = strconv.Itoa(*t.Recovered)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%d\t%s\t%s\t%s\n", t.Name, t.Status, t.PID, t.Port, up, t.Restarts, recovered, t.Health, t.URL)
	}
	tw.Flush()
}

func seconds(s int64) string { return (time.Duration(s) * time.Second).String() }
