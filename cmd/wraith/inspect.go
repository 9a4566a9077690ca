package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/inspect"
	"github.com/wraithdev/wraith/twin/resolve"
)

// inspectOptions is what `wraith inspect` runs with.
type inspectOptions struct {
	Twin   string
	Format string
	f      *factory
}

func newInspectCmd(f *factory, runF func(context.Context, *inspectOptions) error) *cobra.Command {
	opts := &inspectOptions{f: f}
	cmd := &cobra.Command{
		Use:   "inspect TWIN",
		Short: "Show a twin's routes, resources, fixtures, coverage and digest",
		Long: `Show what a twin serves: every route (method and template) with how many
recorded exchanges answer it and whether it is a resource route, an action
or a plain route; the declared resources; the fixture sets with their
entity counts; the recordings; the coverage (routes with at least one
recording, of all routes); recorded_at and the digest.

TWIN is anything serve takes: a folder, a .twin file, ./twins/NAME,
./NAME.twin, a twin on WRAITH_TWINS_PATH, or an embedded twin.`,
		Example: `  wraith inspect checkout
  wraith inspect ./twins/payments --format json | jq '.coverage'`,
		Args: exactArgs(1, "TWIN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Twin = args[0]
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInspect(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: text or json")
	return cmd
}

func checkFormat(format string) error {
	if format != "text" && format != "json" {
		return usagef("--format must be text or json, got %q", format)
	}
	return nil
}

// inspectDoc is `wraith inspect --format json`.
type inspectDoc struct {
	Source string `json:"source"` // where TWIN resolved: a path, or "embedded"
	*inspect.Report
}

func runInspect(_ context.Context, opts *inspectOptions) error {
	src, t, err := loadTwin(opts.f, opts.Twin)
	if err != nil {
		return err
	}
	r, err := inspect.Inspect(t)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		return writeJSON(opts.f.Stdout, inspectDoc{Source: src.Where, Report: r})
	}
	return writeInspectText(opts.f.Stdout, src.Where, r)
}

// resolveTwin resolves a TWIN argument as serve does; a twin that does not
// resolve is a usage error.
func resolveTwin(f *factory, arg string) (resolve.Source, error) {
	dir, err := f.Getwd()
	if err != nil {
		return resolve.Source{}, err
	}
	src, err := resolve.New(dir, f.Getenv("WRAITH_TWINS_PATH"), embedded.FS()).Resolve(arg)
	if errors.Is(err, resolve.ErrNotFound) {
		return resolve.Source{}, &usageError{err}
	}
	if w := src.ShadowWarning(); w != "" && !f.warned[w] {
		if f.warned == nil {
			f.warned = map[string]bool{}
		}
		f.warned[w] = true
		fmt.Fprintf(f.Stderr, "wraith: warning: %s\n", w)
	}
	return src, err
}

// loadTwin resolves and loads a TWIN argument.
func loadTwin(f *factory, arg string) (resolve.Source, *format.Twin, error) {
	src, err := resolveTwin(f, arg)
	if err != nil {
		return resolve.Source{}, nil, err
	}
	t, err := src.Load()
	if err != nil {
		return resolve.Source{}, nil, err
	}
	return src, t, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func writeInspectText(w io.Writer, source string, r *inspect.Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")) }
	row("twin", r.Twin)
	row("source", source)
	if r.Provider != "" {
		row("provider", r.Provider)
	}
	if r.Upstream != "" {
		row("upstream", r.Upstream)
	}
	row("digest", r.Digest)
	row("recorded_at", timeOrNone(r.RecordedAt))
	row("coverage", fmt.Sprintf("%d of %d routes recorded (%.1f%%)", r.Coverage.Recorded, r.Coverage.Routes, r.Coverage.Percent))
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nROUTES (%d)\n", len(r.Routes))
	row("METHOD", "TEMPLATE", "KIND", "RESOURCE", "OPERATION", "EXCHANGES")
	for _, rt := range r.Routes {
		kind, res, op := rt.Kind, orDash(rt.Resource), orDash(rt.Operation)
		if rt.Kind == inspect.KindPlain {
			kind += " (" + rt.Origin + ")"
		}
		row(rt.Method, rt.Template, kind, res, op, fmt.Sprint(rt.Exchanges))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nRESOURCES (%d)\n", len(r.Resources))
	row("NAME", "ID_PREFIX", "COLLECTION", "ITEM", "UPDATE", "DELETE", "ACTIONS")
	for _, res := range r.Resources {
		row(res.Name, res.IDPrefix, res.Collection, res.Item, strings.Join(res.Update, ","), res.Delete, orDash(strings.Join(res.Actions, ",")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nFIXTURES (%d)", len(r.Fixtures))
	if len(r.FixtureImports) > 0 {
		fmt.Fprintf(w, "; also imports the sets of: %s", strings.Join(r.FixtureImports, ", "))
	}
	fmt.Fprintln(w)
	row("NAME", "ENTITIES", "OBJECTS")
	for _, fx := range r.Fixtures {
		var objs []string
		for obj, n := range fx.Objects {
			objs = append(objs, fmt.Sprintf("%s=%d", obj, n))
		}
		sort.Strings(objs)
		row(fx.Name, fmt.Sprint(fx.Entities), orDash(strings.Join(objs, ",")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nRECORDINGS (%d)\n", len(r.Recordings))
	row("NAME", "EXCHANGES", "FIRST", "LAST")
	for _, rec := range r.Recordings {
		row(rec.Name, fmt.Sprint(rec.Exchanges), rec.First.Format(time.RFC3339), rec.Last.Format(time.RFC3339))
	}
	return tw.Flush()
}

func timeOrNone(t *time.Time) string {
	if t == nil {
		return "none (no recordings)"
	}
	return t.Format(time.RFC3339)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
