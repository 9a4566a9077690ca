package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/resolve"
)

type twinsOptions struct {
	f *factory
}

func newTwinsCmd(f *factory, runF func(context.Context, *twinsOptions) error) *cobra.Command {
	opts := &twinsOptions{f: f}
	return &cobra.Command{
		Use:   "twins",
		Short: "List the twins that serve can resolve, embedded ones included",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTwins(cmd.Context(), opts)
		},
	}
}

func runTwins(_ context.Context, opts *twinsOptions) error {
	f := opts.f
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	r := resolve.New(dir, f.Getenv("WRAITH_TWINS_PATH"), embedded.FS())
	tw := tabwriter.NewWriter(f.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tDIGEST\tEXCHANGES\tFIXTURES")
	for _, src := range r.List() {
		t, err := src.Load()
		if err != nil {
			fmt.Fprintf(tw, "%s\t%s\tinvalid: %v\t\t\n", src.Name, src.Where, err)
			continue
		}
		fixtures := ""
		for i, n := range t.FixtureNames() {
			if i > 0 {
				fixtures += ","
			}
			fixtures += n
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", src.Name, src.Where, t.Digest, len(t.Exchanges), fixtures)
	}
	return tw.Flush()
}
