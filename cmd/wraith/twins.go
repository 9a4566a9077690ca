package main

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/resolve"
)

type twinsOptions struct {
	Format string
	f      *factory
}

func newTwinsCmd(f *factory, runF func(context.Context, *twinsOptions) error) *cobra.Command {
	opts := &twinsOptions{f: f}
	cmd := &cobra.Command{
		Use:   "twins",
		Short: "List the twins that serve can resolve, embedded ones included",
		Long: `List every twin a bare name resolves to here, first hit per name: ./twins/NAME,
./NAME.twin, the folders of WRAITH_TWINS_PATH, then the twins embedded in the
binary. A local twin with the name of an embedded one shadows it; the
SOURCE column says so, and embedded:NAME still picks the embedded twin.`,
		Example: `  wraith twins
  wraith twins --format json | jq -r '.twins[].name'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTwins(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: text or json")
	return cmd
}

// twinsDoc is `wraith twins --format json`.
type twinsDoc struct {
	Twins []twinEntry `json:"twins"`
}

// twinEntry is one twin that resolves by name. Error is set, and the twin's
// own fields are empty, when it is there but cannot be loaded.
type twinEntry struct {
	Name      string   `json:"name"`
	Source    string   `json:"source"`            // a path, or "embedded"
	Shadows   string   `json:"shadows,omitempty"` // "embedded" when it hides the embedded twin of its name
	Digest    string   `json:"digest,omitempty"`
	Exchanges int      `json:"exchanges"`
	Fixtures  []string `json:"fixtures"`
	Error     string   `json:"error,omitempty"`
}

func runTwins(_ context.Context, opts *twinsOptions) error {
	f := opts.f
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	r := resolve.New(dir, f.Getenv("WRAITH_TWINS_PATH"), embedded.FS())
	doc := twinsDoc{Twins: []twinEntry{}}
	for _, src := range r.List() {
		e := twinEntry{Name: src.Name, Source: src.Where, Shadows: src.Shadows, Fixtures: []string{}}
		if t, err := src.Load(); err != nil {
			e.Error = err.Error()
		} else {
			e.Digest, e.Exchanges, e.Fixtures = t.Digest, len(t.Exchanges), t.FixtureNames()
		}
		doc.Twins = append(doc.Twins, e)
	}
	if opts.Format == "json" {
		return writeJSON(f.Stdout, doc)
	}
	tw := tabwriter.NewWriter(f.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tDIGEST\tEXCHANGES\tFIXTURES")
	for _, e := range doc.Twins {
		source := e.Source
		if e.Shadows != "" {
			source += " (shadows " + e.Shadows + ")"
		}
		if e.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\tinvalid: %s\t\t\n", e.Name, source, e.Error)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", e.Name, source, e.Digest, e.Exchanges, strings.Join(e.Fixtures, ","))
	}
	return tw.Flush()
}

// embeddedTwins names the twins built into this binary: the folders of the
// embedded package that hold a twin.toml, in order. Help texts take the
// list from here, so a twin added there is listed everywhere.
func embeddedTwins() []string {
	entries, _ := fs.ReadDir(embedded.FS(), ".")
	var names []string
	for _, e := range entries {
		if _, err := fs.Stat(embedded.FS(), path.Join(e.Name(), "twin.toml")); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	return names
}
