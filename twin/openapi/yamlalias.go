package openapi

import (
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v4"
)

// MaxAliasNodes is how many nodes a YAML description's aliases may add to
// it. kin-openapi decodes a description one struct at a time, and each
// decode starts go-yaml's own alias budget afresh, so a schema whose
// properties are aliases of a schema whose properties are aliases...
// expands without limit: a 1.3 KB file of aliases eight wide and eight
// deep (tens of millions of nodes) ran the import and serve out of memory.
// A million added nodes is the same order as the sampler's budget of a
// whole import (MaxImportNodes); the pinned descriptions are JSON, which
// has no aliases.
const MaxAliasNodes = 1_000_000

// aliasCount is what expanding a YAML document's aliases would make of it.
type aliasCount struct {
	literal  int64      // nodes as written, an alias counting as one
	expanded int64      // nodes once every alias stands for its anchor's value
	aliases  int        // alias nodes as written
	biggest  *yaml.Node // the alias standing for the most nodes, first of equals
	stands   int64      // how many nodes biggest stands for
}

// countAliases counts root's nodes with and without its aliases expanded,
// without expanding them: an anchor's value is complete before any alias
// to it (YAML defines an anchor before its aliases), so a walk in document
// order knows each alias's count when it meets it, and costs time linear
// in the document as written.
func countAliases(root *yaml.Node) aliasCount {
	c := aliasCount{}
	anchors := map[*yaml.Node]int64{}
	var walk func(n *yaml.Node) int64
	walk = func(n *yaml.Node) int64 {
		c.literal++
		if n.Kind == yaml.AliasNode {
			c.aliases++
			// An alias inside its own anchor is not in the map yet: it
			// counts as itself, and the parser refuses it.
			v, ok := anchors[n.Alias]
			if !ok {
				v = 1
			}
			if v > c.stands {
				c.biggest, c.stands = n, v
			}
			return v
		}
		total := int64(1)
		for _, k := range n.Content {
			total = addSat(total, walk(k))
		}
		if n.Anchor != "" {
			anchors[n] = total
		}
		return total
	}
	if root != nil {
		c.expanded = walk(root)
	}
	return c
}

// addSat adds counts that a deep enough bomb would overflow.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// checkAliases refuses a YAML document whose aliases would add more than
// MaxAliasNodes nodes, naming the alias that stands for the most.
func checkAliases(root *yaml.Node, size int) error {
	c := countAliases(root)
	if c.expanded-c.literal <= MaxAliasNodes {
		return nil
	}
	expanded := strconv.FormatInt(c.expanded, 10)
	if c.expanded == math.MaxInt64 {
		expanded = "more than " + expanded
	}
	return fmt.Errorf("%s (line %d): YAML aliases expand this description of %d bytes and %d nodes to %s nodes (this alias, *%s, stands for %d of them; %d aliases in all): wraith lets aliases add at most %d nodes; write the description without aliases, or as JSON",
		pointerName(pathOf(root, c.biggest)), c.biggest.Line, size, c.literal, expanded, c.biggest.Value, c.stands, c.aliases, MaxAliasNodes)
}

// pathOf returns the JSON pointer of target in root, not following
// aliases; it is looked for only to name it in a refusal.
func pathOf(root, target *yaml.Node) string {
	var find func(n *yaml.Node, path string) (string, bool)
	find = func(n *yaml.Node, path string) (string, bool) {
		if n == target {
			return path, true
		}
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				if p, ok := find(c, path); ok {
					return p, true
				}
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i] == target { // an alias as a key: name its mapping
					return path, true
				}
				if p, ok := find(n.Content[i+1], path+"/"+escapePointer(n.Content[i].Value)); ok {
					return p, true
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if p, ok := find(c, path+"/"+strconv.Itoa(i)); ok {
					return p, true
				}
			}
		}
		return "", false
	}
	p, _ := find(root, "#")
	return p
}
