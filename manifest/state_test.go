package manifest

import (
	"reflect"
	"testing"
)

// TestStateDirFlag: a twin's state_dir reaches wraith-twin as
// --state-dir; twins without one keep their sessions in memory.
func TestStateDirFlag(t *testing.T) {
	src := "[[twins]]\nname = \"a\"\nstate_dir = \".wraith/state/a\"\n\n[[twins]]\nname = \"b\"\n"
	p, err := Parse("/x/wraith-project.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]string{{"--state-dir=.wraith/state/a"}, nil} {
		if have := p.Twins[i].Flags(); !reflect.DeepEqual(have, want) {
			t.Errorf("twins[%d]: want %q, have %q", i, want, have)
		}
	}
}
