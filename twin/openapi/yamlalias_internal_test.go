package openapi

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestCountAliases counts small documents' nodes as written and as
// expanded, by hand: a document node, a mapping, its keys and values, an
// alias standing for its anchor's whole value, aliases inside anchors
// multiplying, a merge key, and an alias inside its own anchor (which the
// parser refuses later) counting as itself.
func TestCountAliases(t *testing.T) {
	for _, tt := range []struct {
		name              string
		doc               string
		literal, expanded int64
		aliases           int
		stands            int64
	}{
		// document, mapping, a, [1, 2] (3)
		{"no aliases", "a: [1, 2]\n", 6, 6, 0, 0},
		// ... and b, *x standing for the sequence's 3
		{"one alias", "a: &x [1, 2]\nb: *x\n", 8, 10, 1, 3},
		{"an alias of a scalar", "a: &x 1\nb: *x\n", 6, 6, 1, 1},
		// c's sequence holds two aliases of b's (1 + 2×3 = 7), c's alias 7
		{"aliases in an anchor", "a: &x [1, 2]\nb: &y [*x, *x]\nc: *y\n", 12, 22, 3, 7},
		// the merge key's alias stands for the mapping {k: 1} (3 nodes)
		{"a merge key", "a: &x {k: 1}\nb: {<<: *x, j: 2}\n", 12, 14, 1, 3},
		{"an alias as a key", "a: &x k\n*x : 1\n", 6, 6, 1, 1},
		{"an alias inside its own anchor", "a: &x [*x]\n", 5, 5, 1, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var root yaml.Node
			if err := yaml.Unmarshal([]byte(tt.doc), &root); err != nil {
				t.Fatal(err)
			}
			c := countAliases(&root)
			have := [4]int64{c.literal, c.expanded, int64(c.aliases), c.stands}
			if want := [4]int64{tt.literal, tt.expanded, int64(tt.aliases), tt.stands}; have != want {
				t.Errorf("(literal, expanded, aliases, stands): want %v, have %v", want, have)
			}
		})
	}
}

// TestCheckAliasesLimit: aliases adding exactly MaxAliasNodes nodes pass;
// one more is refused, naming the alias, its line and the count, and saying
// how to write the description instead.
func TestCheckAliasesLimit(t *testing.T) {
	// An anchor of a sequence of n scalars (n+1 nodes) aliased k times
	// adds k×n nodes: each alias is one node as written. The second case
	// adds one more with an alias of a one-item sequence.
	doc := func(n, k int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "a: &x [%s]\nb:\n", strings.TrimSuffix(strings.Repeat("0,", n), ","))
		for i := 0; i < k; i++ {
			b.WriteString("  - *x\n")
		}
		return b.String()
	}
	for _, tt := range []struct {
		name string
		doc  string
		want []string // in the error; none: accepted
	}{
		{"at the limit", doc(1000, MaxAliasNodes/1000), nil},
		{"one node past it", doc(1000, MaxAliasNodes/1000) + "c: &y [0]\nd: *y\n", []string{
			"#/b/0 (line 3): YAML aliases expand this description",
			"and 2011 nodes to 1002012 nodes (this alias, *x, stands for 1001 of them; 1001 aliases in all)",
			"wraith lets aliases add at most 1000000 nodes; write the description without aliases, or as JSON",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var root yaml.Node
			if err := yaml.Unmarshal([]byte(tt.doc), &root); err != nil {
				t.Fatal(err)
			}
			err := checkAliases(&root, len(tt.doc))
			if tt.want == nil {
				if err != nil {
					t.Errorf("want no error, have %v", err)
				}
				return
			}
			for _, want := range tt.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("want an error saying %q, have %v", want, err)
				}
			}
		})
	}
}
