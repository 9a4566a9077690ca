package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// versionOptions is what `wraith version` runs with.
type versionOptions struct {
	Format string
	f      *factory
}

func newVersionCmd(f *factory, runF func(context.Context, *versionOptions) error) *cobra.Command {
	opts := &versionOptions{f: f}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print Wraith's version, the commit it was built from and the Go version",
		Long: `Print the module version, the commit it was built from (and whether the
work tree had uncommitted changes), and the Go toolchain and platform.

The commit is known when the binary was built inside a git checkout with
VCS stamping on (go build's default, -buildvcs); otherwise it is "unknown".`,
		Example: `  wraith version
  wraith version --format json | jq -r .commit`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runVersion(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: text or json")
	return cmd
}

// versionInfo is `wraith version --format json`.
type versionInfo struct {
	Version    string `json:"version"`
	Commit     string `json:"commit"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified"`
	Go         string `json:"go"`
	Platform   string `json:"platform"`
}

// buildVersion reads what the binary knows about itself. stamped is the
// version set with -ldflags "-X main.version=..."; "dev" means unset.
func buildVersion(stamped string, bi *debug.BuildInfo) versionInfo {
	v := versionInfo{
		Version:  stamped,
		Commit:   "unknown",
		Go:       runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi == nil {
		return v
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	// `go install module@v1.2.3` stamps the module version; a build from a
	// checkout says "(devel)", or a pseudo-version derived from git.
	if (v.Version == "" || v.Version == "dev") && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// readBuildInfo is debug.ReadBuildInfo, or nil when the binary carries none.
func readBuildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

func runVersion(_ context.Context, opts *versionOptions) error {
	f := opts.f
	v := buildVersion(f.Version, readBuildInfo())
	if opts.Format == "json" {
		return writeJSON(f.Stdout, v)
	}
	commit := v.Commit
	if v.Modified {
		commit += " (modified: built with uncommitted changes)"
	}
	tw := tabwriter.NewWriter(f.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "wraith\t%s\n", v.Version)
	fmt.Fprintf(tw, "commit\t%s\n", commit)
	if v.CommitTime != "" {
		fmt.Fprintf(tw, "commit time\t%s\n", v.CommitTime)
	}
	fmt.Fprintf(tw, "go\t%s %s\n", v.Go, v.Platform)
	return tw.Flush()
}
