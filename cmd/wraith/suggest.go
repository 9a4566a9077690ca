package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError is the root's flag error func: every flag mistake is a usage
// error (exit 2), and an unknown flag comes with the flags of that command
// it is closest to, as cobra does for mistyped subcommands.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	var typed string
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		typed = name
	} else if strings.HasPrefix(msg, "unknown shorthand flag: ") {
		// "unknown shorthand flag: 'x' in -xyz": a long flag with one dash
		// is the usual cause, so suggest from the whole word.
		if i := strings.LastIndex(msg, " in -"); i >= 0 {
			typed = msg[i+len(" in -"):]
		}
	}
	if typed == "" {
		return &usageError{fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())}
	}
	typed, _, _ = strings.Cut(typed, "=")
	var b strings.Builder
	fmt.Fprintf(&b, "%s for %s", msg, cmd.CommandPath())
	if s := suggestFlags(cmd.Flags(), typed); len(s) > 0 {
		b.WriteString("\n\nDid you mean this?\n")
		for _, name := range s {
			fmt.Fprintf(&b, "\t--%s\n", name)
		}
	}
	fmt.Fprintf(&b, "\nSee '%s --help' for its flags.", cmd.CommandPath())
	return &usageError{fmt.Errorf("%s", b.String())}
}

// maxSuggestDistance is how many edits away a flag may be to be suggested;
// cobra uses the same for subcommands.
const maxSuggestDistance = 2

// suggestFlags returns the names of fs's flags that typed is probably a
// misspelling of: within maxSuggestDistance edits, or a prefix, closest first.
func suggestFlags(fs *pflag.FlagSet, typed string) []string {
	typed = strings.ToLower(typed)
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := levenshtein(typed, strings.ToLower(f.Name))
		if d <= maxSuggestDistance || (len(typed) > 1 && strings.HasPrefix(f.Name, typed)) {
			cands = append(cands, cand{f.Name, d})
		}
	})
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].d != cands[j].d {
			return cands[i].d < cands[j].d
		}
		return cands[i].name < cands[j].name
	})
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = c.name
	}
	return names
}

// levenshtein is the edit distance between a and b (insertions, deletions
// and substitutions of bytes), in O(len(a)·len(b)) time and O(len(b)) space.
func levenshtein(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0] // row[i-1][j-1]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cur := row[j]
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(row[j]+1, row[j-1]+1, prev+cost)
			prev = cur
		}
	}
	return row[len(b)]
}
