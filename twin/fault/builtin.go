package fault

import (
	_ "embed"
	"fmt"

	"github.com/wraithdev/wraith/twin/format"
)

// builtinTOML is the built-in profiles, in the syntax of a twin's own
// [[fault_profiles]], so that a user reads them as they write theirs. A
// string, not a []byte: the embedded file cannot be changed at run time.
//
//go:embed builtin.toml
var builtinTOML string

// Builtin returns the built-in profiles, parsed and validated afresh on
// each call: Compile calls it once per twin, and nothing parsed is kept
// where another twin could change it.
func Builtin() ([]format.FaultProfile, error) {
	ps, err := format.ParseFaultProfiles([]byte(builtinTOML), "built-in fault profiles (twin/fault/builtin.toml)")
	if err != nil {
		return nil, fmt.Errorf("%w (a bug in this build of Wraith)", err)
	}
	return ps, nil
}
