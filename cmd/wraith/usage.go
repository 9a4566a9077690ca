package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// usageError is a mistake in how the command was called: exit 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit 2).
func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// exactArgs wants n positional arguments, naming them in the error.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s, got %d arguments (see %s --help)", cmd.CommandPath(), names, len(args), cmd.CommandPath())
		}
		return nil
	}
}

// noArgs refuses positional arguments.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q (see %s --help)", cmd.CommandPath(), args, cmd.CommandPath())
	}
	return nil
}

// isUnknownCommand reports cobra's error for an unknown subcommand, which
// does not pass through the flag error func or an Args validator.
func isUnknownCommand(err error) bool {
	return strings.HasPrefix(err.Error(), "unknown command ")
}
