package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/twin/inspect"
)

// diffOptions is what `wraith diff` runs with.
type diffOptions struct {
	A, B     string
	Format   string
	ExitCode bool
	f        *factory
}

func newDiffCmd(f *factory, runF func(context.Context, *diffOptions) error) *cobra.Command {
	opts := &diffOptions{f: f}
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Show what changed between two twins",
		Long: `Show what changed from twin A to twin B: the digest; routes added, removed
or answered differently; resources added, removed or changed (which fields
of the declaration); exchanges added, removed or changed (by recording and
index, with their request line and the parts that differ); fixture sets
added, removed or changed (entity ids added, removed or changed); and other
twin.toml settings.

A and B are anything serve takes: folders, .twin files, names.

Exit status is 0 whether or not the twins differ, unless --exit-code is
given: then, as with git diff --exit-code, 1 means the digests differ and 0
that they are the same. Errors exit 1 (or 2 for a usage error) either way.`,
		Example: `  wraith diff twins/payments payments.twin
  wraith diff old.twin twins/payments --format json | jq '.exchanges.changed'
  wraith diff --exit-code pinned.twin twins/payments || echo "the twin changed"`,
		Args: exactArgs(2, "two twins, A and B"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.A, opts.B = args[0], args[1]
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDiff(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: text or json")
	cmd.Flags().BoolVar(&opts.ExitCode, "exit-code", false, "exit 1 when the twins differ, 0 when they are the same")
	return cmd
}

// diffDoc is `wraith diff --format json`.
type diffDoc struct {
	SourceA string `json:"source_a"`
	SourceB string `json:"source_b"`
	*inspect.Diff
}

func runDiff(_ context.Context, opts *diffOptions) error {
	srcA, a, err := loadTwin(opts.f, opts.A)
	if err != nil {
		return err
	}
	srcB, b, err := loadTwin(opts.f, opts.B)
	if err != nil {
		return err
	}
	d, err := inspect.Compare(a, b)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		err = writeJSON(opts.f.Stdout, diffDoc{SourceA: srcA.Where, SourceB: srcB.Where, Diff: d})
	} else {
		err = writeDiffText(opts.f.Stdout, srcA.Where, srcB.Where, d)
	}
	if err != nil {
		return err
	}
	if opts.ExitCode && !d.Same {
		return &silentError{code: exitRuntime}
	}
	return nil
}

func writeDiffText(w io.Writer, whereA, whereB string, d *inspect.Diff) error {
	fmt.Fprintf(w, "a  %s  %s  (%s)\n", d.A.Twin, d.A.Digest, whereA)
	fmt.Fprintf(w, "b  %s  %s  (%s)\n", d.B.Twin, d.B.Digest, whereB)
	if d.Same {
		_, err := fmt.Fprintln(w, "\nsame digest: the twins are identical")
		return err
	}
	if d.Empty() {
		_, err := fmt.Fprintln(w, "\nthe digests differ, but nothing diff compares does: the difference is in layout (JSON or TOML formatting) or in files other than twin.toml, recordings and fixtures")
		return err
	}
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s\n", title)
		for _, l := range lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	var lines []string
	for _, c := range d.Manifest {
		lines = append(lines, "~ "+describeChange(c))
	}
	section("manifest", lines)

	lines = nil
	for _, r := range d.Routes.Added {
		lines = append(lines, "+ "+r.Method+" "+r.Template+"  ("+describeRoute(r)+")")
	}
	for _, r := range d.Routes.Removed {
		lines = append(lines, "- "+r.Method+" "+r.Template+"  ("+describeRoute(r)+")")
	}
	for _, r := range d.Routes.Changed {
		lines = append(lines, "~ "+r.Method+" "+r.Template+"  ("+describeRoute(r.A)+" -> "+describeRoute(r.B)+")")
	}
	section("routes", lines)

	lines = nil
	for _, n := range d.Resources.Added {
		lines = append(lines, "+ "+n)
	}
	for _, n := range d.Resources.Removed {
		lines = append(lines, "- "+n)
	}
	for _, r := range d.Resources.Changed {
		var parts []string
		for _, c := range r.Changes {
			parts = append(parts, describeChange(c))
		}
		lines = append(lines, "~ "+r.Name+": "+strings.Join(parts, "; "))
	}
	section("resources", lines)

	lines = nil
	for _, e := range d.Exchanges.Added {
		lines = append(lines, "+ "+e.Exchange+"  "+e.Method+" "+e.Path)
	}
	for _, e := range d.Exchanges.Removed {
		lines = append(lines, "- "+e.Exchange+"  "+e.Method+" "+e.Path)
	}
	for _, e := range d.Exchanges.Changed {
		lines = append(lines, "~ "+e.Exchange+"  "+e.Method+" "+e.Path+": "+strings.Join(e.Parts, ", "))
	}
	section("exchanges", lines)

	lines = nil
	for _, n := range d.Fixtures.Added {
		lines = append(lines, "+ "+n)
	}
	for _, n := range d.Fixtures.Removed {
		lines = append(lines, "- "+n)
	}
	for _, fc := range d.Fixtures.Changed {
		var parts []string
		if fc.Description != nil {
			parts = append(parts, "description")
		}
		if len(fc.Added) > 0 {
			parts = append(parts, "+ "+strings.Join(fc.Added, ", "))
		}
		if len(fc.Removed) > 0 {
			parts = append(parts, "- "+strings.Join(fc.Removed, ", "))
		}
		if len(fc.Changed) > 0 {
			parts = append(parts, "~ "+strings.Join(fc.Changed, ", "))
		}
		lines = append(lines, "~ "+fc.Name+": "+strings.Join(parts, "; "))
	}
	section("fixtures", lines)
	return nil
}

func describeRoute(r inspect.Route) string {
	switch r.Kind {
	case inspect.KindPlain:
		return "plain, " + r.Origin
	default:
		return r.Kind + " " + r.Resource + " " + r.Operation
	}
}

// describeChange shows short values inline and names long ones.
func describeChange(c inspect.Change) string {
	a, b := string(c.A), string(c.B)
	switch {
	case a == "null":
		return c.Field + " added"
	case b == "null":
		return c.Field + " removed"
	case len(a) <= 60 && len(b) <= 60:
		return c.Field + " " + a + " -> " + b
	}
	return c.Field + " changed"
}
