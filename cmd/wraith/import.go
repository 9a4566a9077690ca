package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// importOptions is what `wraith import openapi` runs with.
type importOptions struct {
	Spec     string
	Output   string
	Name     string
	Provider string
	Fixtures string
	Overlay  string
	Format   string
	// RequestsFor, instead of Output, is a twin folder made otherwise
	// (recorded) whose requests.json the import writes.
	RequestsFor string
	f           *factory
}

// newImportCmd is `wraith import`, the parent of one command per kind of
// API description.
func newImportCmd(f *factory, runF func(context.Context, *importOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Make a twin from an API description",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("import needs a kind of description: wraith import openapi SPEC -o DIR")
		},
	}
	cmd.AddCommand(newImportOpenAPICmd(f, runF))
	return cmd
}

func newImportOpenAPICmd(f *factory, runF func(context.Context, *importOptions) error) *cobra.Command {
	opts := &importOptions{f: f}
	cmd := &cobra.Command{
		Use:   "openapi SPEC -o DIR",
		Short: "Write a twin folder from an OpenAPI 3.0 or 3.1 document",
		Long: `Write a twin folder (format 1) from an OpenAPI 3.0 or 3.1 document, JSON
or YAML, plus DIR/import-report.json: what was inferred, how sure the
importer is, and what it left unresolved (docs/import.md).

The import takes a dialect, how the provider speaks: the overlay's dialect
key, else the one that detects the description (github: x-github
operations; stripe: x-resourceId schemas), else rest. It infers the
resources (from collection/item path pairs, or the overlay's operation
anchors), their skeletons from fixtures and examples (else a deterministic
schema sampler) and the error shapes, and writes the dialect into twin.toml.
Every other operation is served as a template answer of its response shape.
The same inputs give the same files and the same digest. Swagger 2.0
documents are refused.

It prints the twin's digest on standard output; with --format json, a
document of the twin, its digest, the folder and the report's counts.

With --requests-for DIR instead of -o, it writes only DIR/requests.json:
the request schemas of the operations the twin in DIR already serves (a
recorded twin of the same provider), so its requests are checked as the
provider checks them (docs/validation.md).

wraith serve SPEC.json (or .yaml) imports in memory and serves the result.`,
		Example: `  wraith import openapi petstore.yaml -o twins/petstore
  wraith import openapi spec3.json -o twins/stripe --name stripe \
    --fixtures fixtures3.json --overlay twin/openapi/overlays/stripe.toml
  wraith serve twins/petstore
  wraith import openapi petstore.yaml -o twins/petstore --format json | jq .counts
  wraith import openapi spec3.json --requests-for twins/checkout \
    --overlay twin/openapi/overlays/stripe.toml`,
		Args: exactArgs(1, "SPEC"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Spec = args[0]
			switch {
			case opts.Output == "" && opts.RequestsFor == "":
				return usagef("import openapi needs -o DIR, the twin folder to write (or --requests-for DIR, a twin folder whose requests.json to write)")
			case opts.Output != "" && opts.RequestsFor != "":
				return usagef("import openapi: -o and --requests-for both given: -o writes a new twin, --requests-for DIR only DIR/requests.json; pass one")
			}
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			if opts.Name != "" && !format.ValidName(opts.Name) {
				return usagef("--name %q: twin names match %s", opts.Name, format.NamePattern)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runImport(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Output, "output", "o", "", "the twin folder to write (created if absent)")
	fl.StringVar(&opts.Name, "name", "", "the twin's name (default: the overlay's, else \"imported\")")
	fl.StringVar(&opts.Provider, "provider", "", "the twin's provider (default: from the document's title)")
	fl.StringVar(&opts.Fixtures, "fixtures", "", "a fixtures file of example objects ({\"resources\":{...}}, as stripe-mock's fixtures3.json)")
	fl.StringVar(&opts.Overlay, "overlay", "", "an overlay TOML file of provider rules (dialect, state machines, anchors) to merge in")
	fl.StringVar(&opts.Format, "format", "text", "output `FORMAT`: text (the digest alone) or json")
	fl.StringVar(&opts.RequestsFor, "requests-for", "", "instead of -o: write only `DIR`/requests.json, the request schemas of the operations the twin in DIR serves")
	return cmd
}

// runImport imports the description and writes the twin. ctx ends on
// SIGINT or SIGTERM: the import stops where it is and nothing is written.
// Unlike a server, which stops cleanly on a signal (exit 0), an import
// stopped has not done its work, so it fails (exit 1) and says so.
func runImport(ctx context.Context, opts *importOptions) error {
	f := opts.f
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	read := func(flag, p string) ([]byte, error) {
		if p == "" {
			return nil, nil
		}
		b, err := os.ReadFile(abs(p))
		if err != nil {
			return nil, usagef("%s %s: %v", flag, p, err)
		}
		return b, nil
	}
	spec, err := read("SPEC", opts.Spec)
	if err != nil {
		return err
	}
	// The file's modification time dates the twin when neither the overlay
	// nor the description pins a date (docs/import.md).
	var modified time.Time
	if fi, err := os.Stat(abs(opts.Spec)); err == nil {
		modified = fi.ModTime()
	}
	fx, err := read("--fixtures", opts.Fixtures)
	if err != nil {
		return err
	}
	ov, err := read("--overlay", opts.Overlay)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Stderr, "wraith: importing %s (%d bytes)\n", opts.Spec, len(spec))
	res, err := openapi.ImportContext(ctx, spec, openapi.Options{Name: opts.Name, Provider: opts.Provider, Fixtures: fx, Overlay: ov, Modified: modified, Dialects: importers.All()})
	if ctx.Err() != nil {
		return fmt.Errorf("import %s stopped (%v): nothing was written to %s", opts.Spec, context.Cause(ctx), opts.Output)
	}
	if errors.Is(err, openapi.ErrSwagger2) {
		return usagef("%s: %v", opts.Spec, err)
	}
	if err != nil {
		return fmt.Errorf("import %s: %w", opts.Spec, err)
	}
	if opts.RequestsFor != "" {
		return writeRequestsFor(f, res, opts.Spec, abs(opts.RequestsFor))
	}
	tw := res.Twin
	if err := res.WriteDir(abs(opts.Output)); err != nil {
		return err
	}
	c := res.Report.Counts
	skipped := ""
	if c.Skipped > 0 {
		skipped = fmt.Sprintf(", %d skipped (paths the router cannot serve)", c.Skipped)
	}
	fmt.Fprintf(f.Stderr, "wraith: imported %s into %s: %d resources, %d operations stateful, %d as templates, %d unserved%s, %d unresolved (see import-report.json)\n",
		opts.Spec, opts.Output, c.Resources, c.Stateful, c.Template, c.Unserved, skipped, c.Unresolved)
	if opts.Format == "json" {
		out := abs(opts.Output)
		return writeJSON(f.Stdout, importDoc{Twin: tw.Name(), Digest: tw.Digest, Dir: out,
			Report: filepath.Join(out, "import-report.json"), Counts: c})
	}
	fmt.Fprintln(f.Stdout, tw.Digest)
	return nil
}

// importDoc is `wraith import openapi --format json`: the counts are the
// report's (import-report.json has the details).
type importDoc struct {
	Twin   string         `json:"twin"`
	Digest string         `json:"digest"`
	Dir    string         `json:"dir"`
	Report string         `json:"report"`
	Counts openapi.Counts `json:"counts"`
}

// writeRequestsFor writes dir/requests.json from the import: the request
// schemas of the operations the twin in dir serves.
func writeRequestsFor(f *factory, res *openapi.Result, spec, dir string) error {
	t, err := res.WriteRequestsFor(dir)
	if errors.Is(err, openapi.ErrNoRequests) {
		return fmt.Errorf("--requests-for %s: %w in %s: is it a twin of the same provider?", dir, err, spec)
	}
	if err != nil {
		return fmt.Errorf("--requests-for %s: %w", dir, err)
	}
	fmt.Fprintf(f.Stderr, "wraith: wrote %s for twin %s\n", filepath.Join(dir, format.RequestsFile), t.Name())
	return nil
}
