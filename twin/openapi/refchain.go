package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// MaxRefChain is the longest chain of references to references (S0 is
// {"$ref": S1}, S1 is {"$ref": S2}, ...) a description may hold. The
// parser resolves such a chain in time that grows faster than the square
// of its length: 2,000 links took 4 s, 8,000 more than a minute, in a
// description of 390 KB, before the importer sees any of it. The pinned
// Stripe and GitHub descriptions' longest chain is 1 link.
const MaxRefChain = 64

// checkStructure refuses, before kin-openapi parses it, a description
// whose structure would cost the parser far more than its size: a chain of
// references longer than MaxRefChain, or YAML aliases adding more than
// MaxAliasNodes nodes. It reads the document once (JSON token by token,
// YAML as a node tree without expanding aliases), so it costs time linear
// in the document's size. A document it cannot read is left to the
// parser, which reports what is wrong with it.
func checkStructure(spec []byte) error {
	if t := bytes.TrimLeft(spec, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		// JSON has no aliases. A document that only starts like JSON
		// (YAML's flow style, {openapi: 3.0.3, ...}) is read as YAML.
		if refs, err := jsonRefs(spec); err == nil {
			return checkRefChains(refs)
		}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(spec, &root); err != nil {
		return nil
	}
	if err := checkAliases(&root, len(spec)); err != nil {
		return err
	}
	refs := map[string]string{}
	yamlRefs(&root, "#", refs, 0)
	return checkRefChains(refs)
}

// checkRefChains refuses a description with a chain of references longer
// than MaxRefChain, naming where it starts. refs maps the JSON pointer of
// every object holding a string "$ref" to the reference.
func checkRefChains(refs map[string]string) error {
	depth := make(map[string]int, len(refs))
	var follow func(at string) int
	follow = func(at string) int {
		if d, ok := depth[at]; ok {
			return d
		}
		depth[at] = 1 // a cycle counts once: the parser refuses or stops it
		d := 1
		if _, isRef := refs[refs[at]]; isRef {
			d = 1 + follow(refs[at])
		}
		depth[at] = d
		return d
	}
	keys := make([]string, 0, len(refs))
	for k := range refs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if n := follow(k); n > MaxRefChain {
			return fmt.Errorf("%s: a chain of %d references to references (%s -> %s -> ...): wraith follows at most %d; refer to the last schema directly", pointerName(k), n, pointerName(k), pointerName(refs[k]), MaxRefChain)
		}
	}
	return nil
}

// pointerName names a JSON pointer in messages: a component as the
// sampler's errors do (#/components/schemas/A is components.schemas.A),
// anything else as the pointer.
func pointerName(p string) string {
	if rest, ok := strings.CutPrefix(p, "#/components/"); ok {
		return "components." + strings.ReplaceAll(rest, "/", ".")
	}
	return p
}

// jsonRefs reads a JSON document token by token.
func jsonRefs(spec []byte) (map[string]string, error) {
	type frame struct {
		obj    bool
		path   string
		key    string
		idx    int
		expect bool // an object waiting for a key
	}
	refs := map[string]string{}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.UseNumber()
	done := func() { // a value of the top container ended
		if n := len(stack); n > 0 {
			if top := stack[n-1]; top.obj {
				top.expect = true
			} else {
				top.idx++
			}
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return refs, nil
		}
		if err != nil {
			return nil, err
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if top != nil && top.obj && top.expect {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				done()
				continue
			}
			top.key, _ = tok.(string)
			top.expect = false
			continue
		}
		path := "#"
		switch {
		case top != nil && top.obj:
			path = top.path + "/" + escapePointer(top.key)
		case top != nil:
			path = top.path + "/" + strconv.Itoa(top.idx)
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{obj: true, path: path, expect: true})
			case '[':
				stack = append(stack, &frame{path: path})
			default: // ']'
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if top != nil && top.obj && top.key == "$ref" {
				refs[top.path] = t
			}
			done()
		default:
			done()
		}
	}
}

// yamlRefs walks a YAML node tree. Aliases are not followed: following
// them could cost as much as expanding them, which checkAliases has
// bounded, and a reference inside an anchor is counted where it is written.
func yamlRefs(n *yaml.Node, path string, refs map[string]string, depth int) {
	if n == nil || depth > 10_000 {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			yamlRefs(c, path, refs, depth+1)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
				refs[path] = v.Value
				continue
			}
			yamlRefs(v, path+"/"+escapePointer(k.Value), refs, depth+1)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			yamlRefs(c, path+"/"+strconv.Itoa(i), refs, depth+1)
		}
	}
}

// escapePointer escapes a JSON pointer token (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
