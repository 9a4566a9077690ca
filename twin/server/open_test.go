package server

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestOpenValidatesInputs: what an embedding program leaves out is an
// error naming the field, never a nil-pointer panic.
func TestOpenValidatesInputs(t *testing.T) {
	defaults := func() Config {
		c := Flags(flag.NewFlagSet("serve", flag.ContinueOnError))
		c.Twin = "checkout"
		return *c
	}
	env := func(string) string { return "" }
	tests := []struct {
		name string
		cfg  Config
		deps Deps
		want []string
	}{
		{"zero config and deps", Config{}, Deps{}, []string{"Config.Twin is empty", "Config.Grace", "Deps.Getenv is nil"}},
		{"no getenv", defaults(), Deps{}, []string{"Deps.Getenv is nil"}},
		{"no twin", func() Config { c := defaults(); c.Twin = ""; return c }(), Deps{Getenv: env}, []string{"Config.Twin is empty"}},
		{"zero-valued flags", Config{Twin: "checkout", Grace: 1}, Deps{Getenv: env}, []string{"--clock", "--clock-step", "--max-body"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := Open(tt.cfg, tt.deps)
			if err == nil {
				srv.ln.Close()
				t.Fatal("Open: want an error, have none")
			}
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Errorf("want a *UsageError, have %T: %v", err, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("want the error to mention %q, have:\n%v", w, err)
				}
			}
		})
	}
}
