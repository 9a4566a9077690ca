package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/resolve"
	"github.com/wraithdev/wraith/twin/session"
)

// completionShells are the shells `wraith completion` writes scripts for.
var completionShells = []string{"bash", "zsh", "fish"}

func newCompletionCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print a shell completion script",
		Long: `Print the completion script for bash, zsh or fish. It completes commands,
flags, twin names (what wraith twins lists, from the current folder when you
press TAB), fixture sets of the twin on the command line, and the values of
flags that take one of a few words (--clock, --unknown-entity, --format...).`,
		Example: `  # bash, this shell only (needs the bash-completion package):
  source <(wraith completion bash)
  # bash, every shell:
  wraith completion bash > ~/.local/share/bash-completion/completions/wraith
  # zsh (compinit must be on):
  wraith completion zsh > "${fpath[1]}/_wraith"
  # fish:
  wraith completion fish > ~/.config/fish/completions/wraith.fish`,
		ValidArgs: completionShells,
		Args:      exactArgs(1, "a shell: bash, zsh or fish"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeCompletion(cmd.Root(), f.Stdout, args[0])
		},
	}
}

func writeCompletion(root *cobra.Command, w io.Writer, shell string) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	}
	return usagef("no completion for shell %q: want %s", shell, strings.Join(completionShells, ", "))
}

// twinArgs is how many leading positional arguments of a command are TWINs.
var twinArgs = map[string]int{"serve": 1, "inspect": 1, "diff": 2, "pack": 1}

// enumFlags are the values of flags that take one of a few words, by flag
// name, for every command that has the flag.
var enumFlags = map[string][]string{
	"clock":          {session.ClockReal, session.ClockDeterministic, session.ClockFixed},
	"unknown-entity": {engine.Synthesize, engine.NotFound},
	"log-format":     {"text", "json"},
	"log-level":      {"trace", "debug", "info", "warn", "error"},
}

// formatValues are the values of --format by command; the default is text or json.
var formatValues = map[string][]string{
	"env": {"json", "shell", "dotenv", "github"},
}

// registerCompletions teaches every command of root to complete twin names,
// fixture sets and enumerated flag values. It is done here, over the built
// tree, so that one table holds what completes and commands stay plain.
func registerCompletions(root *cobra.Command, f *factory) {
	c := completer{f: f}
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		if n, ok := twinArgs[cmd.Name()]; ok && cmd.ValidArgsFunction == nil {
			cmd.ValidArgsFunction = c.twinArg(n)
		}
		for name, values := range enumFlags {
			if cmd.Flags().Lookup(name) != nil {
				cmd.RegisterFlagCompletionFunc(name, fixed(values))
			}
		}
		if cmd.Flags().Lookup("format") != nil {
			values, ok := formatValues[cmd.Name()]
			if !ok {
				values = []string{"text", "json"}
			}
			cmd.RegisterFlagCompletionFunc("format", fixed(values))
		}
		if cmd.Flags().Lookup("fixture") != nil && twinArgs[cmd.Name()] > 0 {
			cmd.RegisterFlagCompletionFunc("fixture", c.fixtures)
		}
		if cmd.Flags().Lookup("fault-profile") != nil {
			// No twin declares fault profiles yet: complete nothing rather
			// than file names.
			cmd.RegisterFlagCompletionFunc("fault-profile", fixed(nil))
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func fixed(values []string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completer completes from what resolves in the working directory.
type completer struct{ f *factory }

func (c completer) resolver() (*resolve.Resolver, error) {
	dir, err := c.f.Getwd()
	if err != nil {
		return nil, err
	}
	return resolve.New(dir, c.f.Getenv("WRAITH_TWINS_PATH"), embedded.FS()), nil
}

// twinArg completes the first n positional arguments with twin names; a
// word that looks like a path falls back to the shell's file completion.
func (c completer) twinArg(n int) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) >= n {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if strings.Contains(toComplete, "/") || strings.HasPrefix(toComplete, ".") {
			return nil, cobra.ShellCompDirectiveDefault
		}
		r, err := c.resolver()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var names []string
		for _, src := range r.List() {
			if strings.HasPrefix(src.Name, toComplete) {
				names = append(names, src.Name+"\t"+src.Where)
			}
		}
		return names, cobra.ShellCompDirectiveDefault
	}
}

// fixtures completes --fixture with the sets of the twin named by the first
// argument: its own (SET) and those it imports (TWIN:SET).
func (c completer) fixtures(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	r, err := c.resolver()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	src, err := r.Resolve(args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	t, err := src.Load()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names := t.FixtureNames()
	for _, imp := range t.Manifest.Fixtures.Imports {
		s, err := r.Resolve(imp)
		if err != nil {
			continue
		}
		it, err := s.Load()
		if err != nil {
			continue
		}
		for _, set := range it.FixtureNames() {
			names = append(names, imp+":"+set)
		}
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
