package format

import (
	"fmt"
	"strings"
	"testing"
)

// faultRulesDoc is a [[fault_profiles]] document whose profile "many"
// has n rules, each a valid rule of its own.
func faultRulesDoc(n int) string {
	var b strings.Builder
	b.WriteString("[[fault_profiles]]\nname = \"many\"\n")
	for i := range n {
		fmt.Fprintf(&b, "[[fault_profiles.rules]]\nname = \"r%d\"\nlatency = \"1ms\"\n", i)
	}
	return b.String()
}

// TestFaultRulesLimit: a profile may have MaxFaultRules rules and no
// more, in a twin's twin.toml and in a profile document alike, since a
// session's snapshot carries one counter per rule and its restore
// refuses more than MaxFaultRules (twin/session). Before the loader held
// profiles to the bound, a twin of 1,025 rules loaded and served, and
// every snapshot it wrote with that profile was refused on restore.
func TestFaultRulesLimit(t *testing.T) {
	tests := []struct {
		rules int
		err   []string // substrings of the error; none: loads
	}{
		{MaxFaultRules, nil},
		{MaxFaultRules + 1, []string{"fault_profiles[0] (many)", "1025 rules", "the limit of 1024", "split it"}},
	}
	for _, tt := range tests {
		doc := faultRulesDoc(tt.rules)
		readers := []struct {
			name, file string
			read       func() error
		}{
			{"Load", "t/twin.toml", func() error { _, err := loadManifest(t, faultsBase+doc); return err }},
			{"ParseFaultProfiles", "profiles.toml", func() error { _, err := ParseFaultProfiles([]byte(doc), "profiles.toml"); return err }},
		}
		for _, r := range readers {
			t.Run(fmt.Sprintf("%s/%d", r.name, tt.rules), func(t *testing.T) {
				err := r.read()
				if tt.err == nil {
					if err != nil {
						t.Fatalf("want %d rules to load, have %v", tt.rules, err)
					}
					return
				}
				if err == nil {
					t.Fatalf("want %d rules refused, have no error", tt.rules)
				}
				for _, want := range append([]string{r.file}, tt.err...) {
					if have := err.Error(); !strings.Contains(have, want) {
						t.Errorf("want %q in the error, have %s", want, cut(have))
					}
				}
			})
		}
	}
}
