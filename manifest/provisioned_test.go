package manifest

import (
	"reflect"
	"strings"
	"testing"
)

// TestRequireProvisionedFlag: require_provisioned, from [defaults] or the
// twin's own table, reaches wraith-twin as --require-provisioned; false
// in a twin's table wins over the default, and a non-boolean is a problem
// naming the key.
func TestRequireProvisionedFlag(t *testing.T) {
	src := `[defaults]
require_provisioned = true

[[twins]]
name = "a"

[[twins]]
name = "b"
require_provisioned = false
`
	p, err := Parse("/x/wraith-project.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"--require-provisioned"}, nil}
	for i := range want {
		if have := p.Twins[i].Flags(); !reflect.DeepEqual(have, want[i]) {
			t.Errorf("twins[%d]: want %q, have %q", i, want[i], have)
		}
	}

	_, err = Parse("/x/wraith-project.toml", []byte("[[twins]]\nname = \"a\"\nrequire_provisioned = \"yes\"\n"))
	if err == nil || !strings.Contains(err.Error(), "twins[0].require_provisioned") {
		t.Errorf("require_provisioned = \"yes\": want a problem naming twins[0].require_provisioned, have %v", err)
	}
}
