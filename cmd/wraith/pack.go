package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/twin/pack"
)

// packOptions is what `wraith pack` runs with.
type packOptions struct {
	Twin   string
	Output string
	Format string
	f      *factory
}

func newPackCmd(f *factory, runF func(context.Context, *packOptions) error) *cobra.Command {
	opts := &packOptions{f: f}
	cmd := &cobra.Command{
		Use:   "pack TWIN_DIR -o FILE.twin",
		Short: "Pack a twin folder into one deterministic .twin file; print its digest",
		Long: `Pack a twin folder into one .twin file and print the twin's digest
(sha256:...) on standard output; with --format json, a document of the
twin, its digest, the file written, its size and the number of files.

The twin is validated first: an invalid twin, one whose recordings still
hold credential headers, or one with a known credential shape anywhere in
its files (Stripe sk_/rk_ keys, GitHub ghp_ tokens, AWS AKIA ids, Google
AIza keys, bearer tokens, private keys, JWTs) is refused with every problem
listed, by file and JSON path, and exit status 1. The same
files give the same bytes, wherever and whenever they are packed. The digest
is the digest of the twin's files, the same for the folder and for its pack,
so a --digest pin works for both (docs/recording.md).

TWIN_DIR is usually a folder; any TWIN that serve takes works (an embedded
twin, or another .twin file).`,
		Example: `  wraith pack twins/payments -o payments.twin
  DIGEST=$(wraith pack twins/payments -o payments.twin)
  wraith serve payments.twin --digest "$DIGEST"
  wraith pack twins/payments -o payments.twin --format json | jq -r .digest`,
		Args: exactArgs(1, "TWIN_DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Twin = args[0]
			if opts.Output == "" {
				return usagef("pack needs -o FILE.twin, the file to write")
			}
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			if !strings.HasSuffix(opts.Output, ".twin") {
				return usagef("-o %s: the file name must end in .twin, which is how TWIN arguments recognise packed twins", opts.Output)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPack(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "the .twin file to write (replaced atomically if it exists)")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output `FORMAT`: text (the digest alone) or json")
	return cmd
}

func runPack(_ context.Context, opts *packOptions) error {
	f := opts.f
	src, err := resolveTwin(f, opts.Twin)
	if err != nil {
		return err
	}
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	out := opts.Output
	if !filepath.IsAbs(out) {
		out = filepath.Join(dir, out)
	}
	if fi, err := os.Stat(src.Where); err == nil && fi.IsDir() {
		if rel, err := filepath.Rel(src.Where, out); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return usagef("-o %s is inside the twin folder %s: it would become part of the twin; write it elsewhere", opts.Output, src.Where)
		}
	}
	where := src.Where
	if where == "embedded" {
		where = "embedded twin " + src.Name
	}
	m, err := pack.WriteFile(out, src.FS, where)
	if err != nil {
		return err
	}
	fi, _ := os.Stat(out)
	var size int64
	if fi != nil {
		size = fi.Size()
	}
	fmt.Fprintf(f.Stderr, "wraith: packed %s (%d files, %d bytes) into %s\n", m.Twin, m.Files, size, opts.Output)
	if opts.Format == "json" {
		return writeJSON(f.Stdout, packDoc{Twin: m.Twin, Digest: m.Digest, File: out, Bytes: size, Files: m.Files})
	}
	fmt.Fprintln(f.Stdout, m.Digest)
	return nil
}

// packDoc is `wraith pack --format json`.
type packDoc struct {
	Twin   string `json:"twin"`
	Digest string `json:"digest"`
	// File is the absolute path of the .twin file written.
	File  string `json:"file"`
	Bytes int64  `json:"bytes"`
	Files int    `json:"files"`
}
