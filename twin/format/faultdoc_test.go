package format

import (
	"strings"
	"testing"
)

func TestParseFaultProfiles(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  string
		want string // "" = parses
	}{
		{"a profile", `
[[fault_profiles]]
name = "p"
[[fault_profiles.rules]]
name = "r"
when = { every = 2 }
effect = { error = "api_error" }
`, ""},
		{"nothing", ``, ""},
		{"another key", "name = \"x\"\n", `doc: line 1 col 1: unknown key "name" (a fault profile document has [[fault_profiles]] only)`},
		{"an unknown rule key", `
[[fault_profiles]]
name = "p"
[[fault_profiles.rules]]
name = "r"
odds = 2
`, `unknown key "fault_profiles.rules.odds"`},
		{"a wrong type", `
[[fault_profiles]]
name = 3
`, `doc: line 3 col`},
		{"none", `
[[fault_profiles]]
name = "none"
`, `doc: fault_profiles[0] (none): "none" is built in`},
		{"an error key of no table", `
[[fault_profiles]]
name = "p"
[[fault_profiles.rules]]
name = "r"
effect = { error = "card_declined" }
`, `effect.error "card_declined" names no [errors.card_declined] table`},
		{"two problems at once", `
[[fault_profiles]]
name = "p"
[[fault_profiles.rules]]
name = "r"
when = { probability = 2.0 }
[[fault_profiles.rules]]
name = "r"
latency = "1ms"
`, `3 problems`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps, err := ParseFaultProfiles([]byte(c.doc), "doc")
			if c.want == "" {
				if err != nil {
					t.Fatalf("want no error, have %v", err)
				}
				if strings.Contains(c.doc, "[[fault_profiles]]") && len(ps) != 1 {
					t.Errorf("want 1 profile, have %+v", ps)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("want an error with %q, have %v", c.want, err)
			}
		})
	}
}
