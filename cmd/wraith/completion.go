package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/resolve"
	"github.com/wraithdev/wraith/twin/scrub"
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
	"validate":       engine.ValidModes,
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
		if cmd.Flags().Lookup("fault-profile") != nil && twinArgs[cmd.Name()] > 0 {
			cmd.RegisterFlagCompletionFunc("fault-profile", c.faultProfiles)
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

// twin loads the twin named by the first argument, and returns it with a
// loader of the twins it imports. When there is no such argument, or it
// names no twin that loads, there is nothing of it to complete: the twin
// is nil and the directive is what to return (an error only when the
// working directory cannot be read).
func (c completer) twin(args []string) (*format.Twin, func(name string) (*format.Twin, error), cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, nil, cobra.ShellCompDirectiveNoFileComp
	}
	r, err := c.resolver()
	if err != nil {
		return nil, nil, cobra.ShellCompDirectiveError
	}
	load := func(name string) (*format.Twin, error) {
		src, err := r.Resolve(name)
		if err != nil {
			return nil, err
		}
		return src.Load()
	}
	t, err := load(args[0])
	if err != nil {
		return nil, nil, cobra.ShellCompDirectiveNoFileComp
	}
	return t, load, cobra.ShellCompDirectiveNoFileComp
}

// fixtures completes --fixture with the sets of the twin named by the first
// argument: its own (SET) and those it imports (TWIN:SET).
func (c completer) fixtures(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	t, load, directive := c.twin(args)
	if t == nil {
		return nil, directive
	}
	names := t.FixtureNames()
	for _, imp := range t.Manifest.Fixtures.Imports {
		it, err := load(imp)
		if err != nil {
			continue
		}
		for _, set := range it.FixtureNames() {
			names = append(names, imp+":"+set)
		}
	}
	return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// faultProfiles completes --fault-profile with the profiles serve accepts
// for the twin named by the first argument: none, the built-in ones and
// the twin's own. The list is the engine's (Engine.FaultProfiles), from an
// engine built as serve builds one, so that a twin's profile replacing a
// built-in one, or a new built-in, needs no second list here. Building it
// costs little beside loading the twin: `wraith __complete` takes 59 ms
// for github's profiles, 45 ms for its fixture sets.
func (c completer) faultProfiles(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	t, load, directive := c.twin(args)
	if t == nil {
		return nil, directive
	}
	eng, err := engine.New(t, engine.Options{
		// The engine is required a scrubber but answers no request here,
		// so the key is never used.
		Scrubber: scrub.New(nil, scrub.Policy{}),
		Import:   load,
	})
	if err != nil {
		// serve would refuse the twin too, and say why.
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return withPrefix(eng.FaultProfiles(), toComplete), cobra.ShellCompDirectiveNoFileComp
}

// withPrefix returns the names that start with prefix.
func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
