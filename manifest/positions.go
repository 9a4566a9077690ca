package manifest

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// positions maps key paths ("defaults.clock", "twins[1].port") to the line
// where they appear. go-toml's decoder reports positions only for syntax and
// unknown-key errors; this index gives every value problem a line too.
type positions map[string]int

// indexPositions walks the document's expressions. It never fails: on a
// syntax error it returns what it indexed so far (the decoder reports the
// error itself).
func indexPositions(data []byte) (pos positions) {
	pos = positions{}
	defer func() {
		// The index only improves messages; a parser panic on hostile input
		// must not take the caller down.
		if recover() != nil {
			return
		}
	}()
	var p unstable.Parser
	p.Reset(data)
	table := ""
	arrays := map[string]int{}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			path, line := keyOf(&p, "", e)
			table = path
			pos.set(path, line)
		case unstable.ArrayTable:
			path, line := keyOf(&p, "", e)
			i := arrays[path]
			arrays[path] = i + 1
			table = fmt.Sprintf("%s[%d]", path, i)
			pos.set(table, line)
		case unstable.KeyValue:
			pos.keyValue(&p, table, e)
		}
	}
	return pos
}

func (pos positions) keyValue(p *unstable.Parser, prefix string, kv *unstable.Node) {
	path, line := keyOf(p, prefix, kv)
	pos.set(path, line)
	v := kv.Value()
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			pos.keyValue(p, path, it.Node())
		}
	case unstable.Array:
		it := v.Children()
		for i := 0; it.Next(); i++ {
			el := it.Node()
			if el.Kind != unstable.InlineTable {
				continue
			}
			elPath := fmt.Sprintf("%s[%d]", path, i)
			pos.set(elPath, p.Shape(el.Raw).Start.Line)
			ct := el.Children()
			for ct.Next() {
				pos.keyValue(p, elPath, ct.Node())
			}
		}
	}
}

// keyOf returns the dotted path of a table header or key-value below prefix,
// and the line of its first key part.
func keyOf(p *unstable.Parser, prefix string, n *unstable.Node) (string, int) {
	parts := []string{}
	if prefix != "" {
		parts = append(parts, prefix)
	}
	line := 0
	it := n.Key()
	for it.Next() {
		k := it.Node()
		if line == 0 {
			line = p.Shape(k.Raw).Start.Line
		}
		parts = append(parts, string(k.Data))
	}
	return strings.Join(parts, "."), line
}

func (pos positions) set(path string, line int) {
	if _, ok := pos[path]; !ok && line > 0 {
		pos[path] = line
	}
}

// line returns the line of path, or of its nearest indexed parent.
func (pos positions) line(path string) int {
	for path != "" {
		if l, ok := pos[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

// entryAt returns the index of the last table of the array `array` that
// starts at or before line, or -1.
func (pos positions) entryAt(array string, line int) int {
	best := -1
	for i := 0; ; i++ {
		l, ok := pos[fmt.Sprintf("%s[%d]", array, i)]
		if !ok {
			return best
		}
		if l <= line {
			best = i
		}
	}
}
