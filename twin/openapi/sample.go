package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxSampleDepth bounds the sampler on recursive schemas.
const maxSampleDepth = 12

// maxSampleItems bounds the elements a sample gives an array whose
// schema requires some (minItems): a sample is the least the schema
// takes, and a larger minimum is not met.
const maxSampleItems = 8

// The sampler's budgets. Depth alone does not bound a sample: a schema
// whose required properties refer back to it six times has 6^12 nodes
// within maxSampleDepth, which a 690-byte description turns into
// gigabytes. So every sample is bounded in nodes (objects, arrays and
// scalars) and bytes (keys and strings), and so is every import, whose
// samples all end up in twin.toml. The largest sample of the pinned
// Stripe and GitHub descriptions is 240 nodes, and the samples of a whole
// import 3,281 nodes and 115 KiB (GitHub's), so these leave room for
// descriptions hundreds of times larger while a sample stays in tens of
// MiB of memory.
const (
	MaxSampleNodes = 100_000
	MaxSampleBytes = 8 << 20
	MaxImportNodes = 1_000_000
	MaxImportBytes = 32 << 20
)

// ctxEvery is how many nodes the sampler makes between looks at its
// context, so that an interrupt stops a long import promptly.
const ctxEvery = 4096

// sampler makes an import's samples within its budgets. It holds the
// first error (a budget passed, the context ended); after one, every
// sample is nil and the import reports the error.
type sampler struct {
	ctx        context.Context
	nodes      int // this sample's
	bytes      int
	totalNodes int // the import's, this sample's included
	totalBytes int
	tick       int                 // nodes since the context was last looked at
	root       *openapi3.SchemaRef // the schema the sample was asked of
	err        error
}

func newSampler(ctx context.Context) *sampler {
	if ctx == nil {
		ctx = context.Background()
	}
	return &sampler{ctx: ctx}
}

// sample returns a deterministic instance of s: the first enum value, null
// for a nullable, an object of its required properties, [] for arrays, 0,
// false and "". It never invents data: a twin's answers must say only what
// the description says.
func (sp *sampler) sample(s *openapi3.SchemaRef) any {
	if sp.err != nil {
		return nil
	}
	sp.nodes, sp.bytes, sp.root = 0, 0, s
	v := sp.at(s, 0)
	if sp.err != nil {
		return nil
	}
	return v
}

// stopped looks at the context between pieces of work that sample
// nothing (an operation without a schema), and reports whether the import
// must stop.
func (sp *sampler) stopped() bool {
	if sp.err == nil {
		sp.err = sp.ctx.Err()
	}
	return sp.err != nil
}

// count adds n nodes and b bytes to the sample and the import, and says
// whether the sample may go on.
func (sp *sampler) count(n, b int, in *openapi3.SchemaRef) bool {
	if sp.err != nil {
		return false
	}
	sp.nodes += n
	sp.bytes += b
	sp.totalNodes += n
	sp.totalBytes += b
	switch {
	case sp.nodes > MaxSampleNodes:
		sp.err = sp.tooLarge(fmt.Sprintf("would pass %d nodes", MaxSampleNodes), in)
	case sp.bytes > MaxSampleBytes:
		sp.err = sp.tooLarge(fmt.Sprintf("would pass %d MiB", MaxSampleBytes>>20), in)
	case sp.totalNodes > MaxImportNodes:
		sp.err = fmt.Errorf("the description's samples would pass %d nodes in all (the last was of %s): it is larger than wraith imports; give its largest schemas examples, or make fewer properties required", MaxImportNodes, schemaName(sp.root))
	case sp.totalBytes > MaxImportBytes:
		sp.err = fmt.Errorf("the description's samples would pass %d MiB in all (the last was of %s): it is larger than wraith imports; give its largest schemas examples, or make fewer properties required", MaxImportBytes>>20, schemaName(sp.root))
	default:
		if sp.tick += n; sp.tick >= ctxEvery {
			sp.tick = 0
			if err := sp.ctx.Err(); err != nil {
				sp.err = err
			}
		}
	}
	return sp.err == nil
}

// tooLarge is the error for a sample past a budget. It names the schema
// asked of and, when it is what fans out, how: the schema whose required
// properties refer to it or to others again and again.
func (sp *sampler) tooLarge(what string, in *openapi3.SchemaRef) error {
	name := schemaName(sp.root)
	why := "the schema fans out"
	if self := selfRefs(sp.root); self > 0 {
		why = fmt.Sprintf("the schema fans out (%d references to itself)", self)
	} else if in != nil && in.Ref != "" {
		why = fmt.Sprintf("the schema fans out (through %s)", schemaName(in))
	}
	return fmt.Errorf("%s: a sample of it %s: %s; wraith samples a schema's required properties, so make fewer of them required (or nullable), or give the schema an example", name, what, why)
}

// schemaName names a schema in messages: its component path, or "an
// inline schema".
func schemaName(s *openapi3.SchemaRef) string {
	if n := RefName(s); n != "" {
		return "components.schemas." + n
	}
	if s != nil && s.Ref != "" {
		return s.Ref
	}
	return "an inline schema"
}

// selfRefs counts the references among s's sampled parts (required
// properties, allOf parts, the first anyOf or oneOf branch) to s itself.
func selfRefs(s *openapi3.SchemaRef) int {
	if s == nil || s.Value == nil || s.Ref == "" {
		return 0
	}
	v, n := s.Value, 0
	parts := slices.Clone(v.AllOf)
	if len(v.AnyOf) > 0 {
		parts = append(parts, v.AnyOf[0])
	}
	if len(v.OneOf) > 0 {
		parts = append(parts, v.OneOf[0])
	}
	for _, k := range v.Required {
		parts = append(parts, v.Properties[k])
	}
	for _, p := range parts {
		if p != nil && (p.Ref == s.Ref || p.Value == v) {
			n++
		}
	}
	return n
}

// measure counts the nodes and bytes of a value taken from the
// description (an example, an enum value), which a sample copies.
func measure(v any) (nodes, bytes int) {
	switch t := v.(type) {
	case map[string]any:
		nodes = 1
		for k, e := range t {
			n, b := measure(e)
			nodes, bytes = nodes+n, bytes+b+len(k)
		}
	case []any:
		nodes = 1
		for _, e := range t {
			n, b := measure(e)
			nodes, bytes = nodes+n, bytes+b
		}
	case string:
		return 1, len(t)
	default:
		return 1, 8
	}
	return nodes, bytes
}

// composed is the value of a schema composed of others, walked with walk
// (the sampler's at, or blank for a skeleton): allOf's objects merged,
// anyOf's chosen branch, oneOf's first; ok is false for a schema that is
// not composed.
func (sp *sampler) composed(ref *openapi3.SchemaRef, depth int, walk func(*openapi3.SchemaRef, int) any) (v any, ok bool) {
	s := ref.Value
	switch {
	case len(s.AllOf) > 0:
		if !sp.count(1, 0, ref) {
			return nil, true
		}
		out := map[string]any{}
		var list []any // an allOf of an array and its description (Box's tags)
		for _, part := range s.AllOf {
			switch v := walk(part, depth+1).(type) {
			case map[string]any:
				for k, e := range v {
					out[k] = e
				}
			case []any:
				if list == nil {
					list = v
				}
			}
			// A nullable array part samples as null (DigitalOcean's
			// tags): the whole is still an array.
			if list == nil && part.Value != nil && part.Value.Type.Is("array") {
				list = []any{}
			}
		}
		if len(out) == 0 && list != nil {
			return list, true
		}
		return out, true
	case len(s.AnyOf) > 0:
		branch := Pick(ref, "")
		return discriminated(walk(branch, depth+1), s, branch), true
	case len(s.OneOf) > 0:
		return discriminated(walk(s.OneOf[0], depth+1), s, s.OneOf[0]), true
	}
	return nil, false
}

// copied counts a value from the description and returns it normalized.
func (sp *sampler) copied(v any, in *openapi3.SchemaRef) any {
	n, b := measure(v)
	if !sp.count(n, b, in) {
		return nil
	}
	return Normalize(v)
}

func (sp *sampler) at(ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > maxSampleDepth || sp.err != nil {
		return nil
	}
	s := ref.Value
	switch {
	case len(s.Enum) > 0:
		return sp.copied(s.Enum[0], ref)
	case Nullable(s):
		sp.count(1, 0, ref)
		return nil
	case s.Example != nil && depth > 0:
		return sp.copied(s.Example, ref)
	}
	if v, ok := sp.composed(ref, depth, sp.at); ok {
		return v
	}
	t := s.Type
	switch {
	case t == nil || t.Is("object") || (t.Permits("object") && len(s.Properties) > 0):
		if !sp.count(1, 0, ref) {
			return nil
		}
		out := map[string]any{}
		req := append([]string(nil), s.Required...)
		sort.Strings(req)
		for _, k := range req {
			if p := s.Properties[k]; p != nil {
				if !sp.count(0, len(k), ref) {
					return nil
				}
				out[k] = sp.at(p, depth+1)
			}
		}
		return out
	}
	if !sp.count(1, 0, ref) {
		return nil
	}
	switch {
	case t.Is("array"):
		// As few elements as the schema allows: none, or minItems
		// (Slack's messages), each a sample of its items.
		out := []any{}
		for i := uint64(0); i < s.MinItems && i < maxSampleItems && s.Items != nil; i++ {
			out = append(out, sp.at(s.Items, depth+1))
		}
		return out
	case t.Is("string"):
		return ""
	case t.Is("integer"), t.Is("number"):
		return json.Number("0")
	case t.Is("boolean"):
		return false
	}
	return nil
}

// discriminated sets the discriminator property of a oneOf or anyOf
// sample to the value that names the branch it took (GitHub's /user
// answers a private-user or public-user told apart by user_view_type): a
// validator picks the branch by that property, so without it the sample
// matches no branch, even when the branch does not require the property.
// The value is the discriminator mapping's key for the branch, else the
// branch's component name, as OpenAPI defines the implicit mapping.
func discriminated(v any, s *openapi3.Schema, branch *openapi3.SchemaRef) any {
	m, ok := v.(map[string]any)
	if !ok || s.Discriminator == nil || s.Discriminator.PropertyName == "" || branch == nil || branch.Ref == "" {
		return v
	}
	name := branch.Ref[strings.LastIndex(branch.Ref, "/")+1:]
	for _, k := range slices.Sorted(maps.Keys(s.Discriminator.Mapping)) {
		if s.Discriminator.Mapping[k].Ref == branch.Ref {
			name = k
			break
		}
	}
	m[s.Discriminator.PropertyName] = name
	return m
}

// Normalize turns a decoded example value into what encoding/json
// re-encodes byte for byte: numbers as json.Number.
func Normalize(v any) any {
	switch t := v.(type) {
	case float64:
		b, _ := json.Marshal(t)
		return json.Number(b)
	case int:
		b, _ := json.Marshal(t)
		return json.Number(b)
	case int64:
		b, _ := json.Marshal(t)
		return json.Number(b)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = Normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = Normalize(e)
		}
		return out
	}
	return v
}

// Compact encodes v as compact JSON with sorted keys (encoding/json sorts
// map keys, so the bytes are stable).
func Compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}
