package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/manifest"
	"github.com/wraithdev/wraith/twin/observe"
)

type coverageOptions struct {
	URL             string
	File            string
	Format          string
	ControlTokenEnv string
	Timeout         time.Duration
	f               *factory
}

func newCoverageCmd(f *factory, runF func(context.Context, *coverageOptions) error) *cobra.Command {
	opts := &coverageOptions{f: f}
	cmd := &cobra.Command{
		Use:   "coverage",
		Short: "Print what agents asked a running twin for, as a to-do list of what to record next",
		Long: `Ask a running twin for its coverage report (GET /__wraith/coverage): every
route that answered since the twin started, with hits per provenance, and
every request it could not answer (a route miss, or an unknown entity under
--unknown-entity not_found), most asked first, with the sessions that asked.

With --url, ask that twin. Without it, ask every twin of the project that
wraith up runs in this folder (or the one -f names).`,
		Example: `  wraith coverage
  wraith coverage --url http://127.0.0.1:41234 --format json | jq '.misses[:5]'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCoverage(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.URL, "url", "", "base `URL` of the twin to ask, as the ready JSON's serve.url (default: the project's twins)")
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "project manifest, to find the running project (default ./"+manifest.DefaultFile+")")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: text or json")
	cmd.Flags().StringVar(&opts.ControlTokenEnv, "control-token-env", "", "name of the environment variable `VAR` holding the twin's control token")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Second, "how long (a `DURATION`) to wait for each twin")
	return cmd
}

func (o *coverageOptions) check() error {
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	if o.Timeout <= 0 {
		return usagef("--timeout must be positive, got %s", o.Timeout)
	}
	if o.URL != "" {
		u, err := baseURL("--url", o.URL)
		if err != nil {
			return err
		}
		o.URL = u
		if o.File != "" {
			return usagef("--url and --file both say which twin to ask: give one")
		}
	}
	return checkTokenEnv(o.f, o.ControlTokenEnv)
}

// coverageTwin is one twin's report in `wraith coverage` output.
type coverageTwin struct {
	Name   string          `json:"name,omitempty"`
	URL    string          `json:"url"`
	Report json.RawMessage `json:"report"`
	parsed observe.Report
}

func runCoverage(ctx context.Context, opts *coverageOptions) error {
	f := opts.f
	var targets []controlTarget
	if opts.URL != "" {
		targets = urlTargets(f, []string{opts.URL}, opts.ControlTokenEnv)
	} else {
		var err error
		if targets, err = projectTargets(f, opts.File, opts.ControlTokenEnv, "--url"); err != nil {
			return err
		}
	}
	client := &http.Client{Timeout: opts.Timeout}
	var out []coverageTwin
	for _, t := range targets {
		body, err := controlCall(ctx, client, http.MethodGet, t.URL+"/__wraith/coverage", t.token)
		if err != nil {
			return fmt.Errorf("coverage of %s: %w", t.URL, err)
		}
		ct := coverageTwin{Name: t.Name, URL: t.URL, Report: body}
		if err := json.Unmarshal(body, &ct.parsed); err != nil {
			return fmt.Errorf("coverage of %s: not a coverage report: %v", t.URL, err)
		}
		out = append(out, ct)
	}
	if opts.Format == "json" {
		if opts.URL != "" {
			_, err := f.Stdout.Write(out[0].Report)
			return err
		}
		return writeJSON(f.Stdout, map[string]any{"twins": out})
	}
	for i, t := range out {
		if i > 0 {
			fmt.Fprintln(f.Stdout)
		}
		writeCoverageText(f.Stdout, t)
	}
	return nil
}

// writeCoverageText prints a report as a to-do list: what to record
// next first, then what already answers.
func writeCoverageText(w io.Writer, t coverageTwin) {
	r := t.parsed
	title := t.URL
	if t.Name != "" {
		title = t.Name + " (" + t.URL + ")"
	}
	fmt.Fprintln(w, title)
	if len(r.Misses) == 0 {
		fmt.Fprintln(w, "  nothing to record: every request so far had an answer")
	} else {
		fmt.Fprintln(w, "  record next (asked for, not answered):")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "    COUNT\tREQUEST\tSESSIONS\tLAST")
		for _, m := range r.Misses {
			sessions := strings.Join(m.Sessions, ",")
			if m.SessionsMore > 0 {
				sessions += fmt.Sprintf(" and %d more", m.SessionsMore)
			}
			fmt.Fprintf(tw, "    %d\t%s %s\t%s\t%s\n", m.Count, m.Method, m.Path, sessions, m.LastAt)
		}
		tw.Flush()
		if r.MissesDropped > 0 {
			fmt.Fprintf(w, "  and %d more misses of paths past the first %d (the report keeps that many)\n", r.MissesDropped, r.MissesLimit)
		}
	}
	if len(r.Routes) == 0 {
		return
	}
	fmt.Fprintln(w, "  routes that answered:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "    ROUTE\tHITS")
	for _, rt := range r.Routes {
		var provs []string
		for p := range rt.Hits {
			if rt.Hits[p] > 0 {
				provs = append(provs, p)
			}
		}
		sort.Strings(provs)
		var parts []string
		for _, p := range provs {
			parts = append(parts, fmt.Sprintf("%s %d", p, rt.Hits[p]))
		}
		fmt.Fprintf(tw, "    %s %s\t%s\n", rt.Method, rt.Route, strings.Join(parts, ", "))
	}
	tw.Flush()
}
