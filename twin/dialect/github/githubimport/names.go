package githubimport

import (
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/openapi"
	"github.com/wraithdev/wraith/twin/route"
)

// paramNames names the path parameters of a GitHub-style description so
// that the twin's templates agree: the router wants one name per
// parameter position, and GitHub's description names some positions
// differently on different paths (/repos/{template_owner}/{template_repo}/
// generate beside /repos/{owner}/{repo}). Each position takes the name
// most of its paths use, ties to the smaller. A last segment whose
// parameter is x-multi-segment ({ref}, {path}) becomes a rest parameter
// {ref...}, which matches heads/main; the router allows a rest parameter
// only last, so a multi-segment parameter elsewhere stays one segment.
type paramNames struct {
	counts map[string]map[string]int // position -> description name -> paths
	chosen map[string]string
}

// pathSeg is one segment of a description path.
type pathSeg struct {
	text  string // static text, or the parameter's name
	param bool
	rest  bool
}

var braced = regexp.MustCompile(`\{([^}]+)\}`)

// notParamName matches what the router does not take in a parameter's
// name ({enterprise-team} becomes {enterprise_team}).
var notParamName = regexp.MustCompile(`[^A-Za-z0-9_]`)

func newParamNames(ops []openapi.Operation) *paramNames {
	pn := &paramNames{counts: map[string]map[string]int{}, chosen: map[string]string{}}
	for _, o := range ops {
		pn.walk(o, func(pos string, s pathSeg) {
			if pn.counts[pos] == nil {
				pn.counts[pos] = map[string]int{}
			}
			pn.counts[pos][s.text]++
		})
	}
	for pos, names := range pn.counts {
		best := ""
		for _, n := range slices.Sorted(maps.Keys(names)) {
			if best == "" || names[n] > names[best] {
				best = n
			}
		}
		pn.chosen[pos] = best
	}
	return pn
}

// walk calls f on every parameter segment of o's path with its position.
func (pn *paramNames) walk(o openapi.Operation, f func(pos string, s pathSeg)) {
	var pos strings.Builder
	for _, s := range splitPath(o) {
		switch {
		case s.rest:
			pos.WriteString("/{...}")
			f(pos.String(), s)
		case s.param:
			pos.WriteString("/{}")
			f(pos.String(), s)
		default:
			pos.WriteString("/" + s.text)
		}
	}
}

// rename returns o's path as a twin route template, and whether the router
// can take it (at most route.MaxParams parameters).
func (pn *paramNames) rename(o openapi.Operation) (string, bool) {
	var b, pos strings.Builder
	n := 0
	for _, s := range splitPath(o) {
		switch {
		case s.rest:
			pos.WriteString("/{...}")
			b.WriteString("/{" + pn.chosen[pos.String()] + "...}")
			n++
		case s.param:
			pos.WriteString("/{}")
			b.WriteString("/{" + pn.chosen[pos.String()] + "}")
			n++
		default:
			pos.WriteString("/" + s.text)
			b.WriteString("/" + s.text)
		}
	}
	return b.String(), n <= route.MaxParams
}

// splitPath parses o's path. A segment holding several parameters
// ({base}...{head}) is one parameter named after them all.
func splitPath(o openapi.Operation) []pathSeg {
	raw := strings.Split(strings.TrimPrefix(o.Path, "/"), "/")
	out := make([]pathSeg, 0, len(raw))
	for i, s := range raw {
		m := braced.FindAllStringSubmatch(s, -1)
		if len(m) == 0 {
			out = append(out, pathSeg{text: s})
			continue
		}
		names := make([]string, len(m))
		for j := range m {
			names[j] = m[j][1]
		}
		name := strings.Join(names, "_")
		whole := len(m) == 1 && s == "{"+name+"}"
		rest := whole && i == len(raw)-1 && multiSegment(o.Op, name)
		out = append(out, pathSeg{text: notParamName.ReplaceAllString(name, "_"), param: true, rest: rest})
	}
	return out
}

// multiSegment reports GitHub's x-multi-segment on a path parameter.
func multiSegment(op *openapi3.Operation, name string) bool {
	for _, p := range op.Parameters {
		if p == nil || p.Value == nil || p.Value.In != "path" || p.Value.Name != name {
			continue
		}
		v, _ := p.Value.Extensions["x-multi-segment"].(bool)
		return v
	}
	return false
}

// templateParams are the parameter names of a route template, rest
// parameters without their dots.
func templateParams(tmpl string) []string {
	var out []string
	for _, m := range braced.FindAllStringSubmatch(tmpl, -1) {
		out = append(out, strings.TrimSuffix(m[1], "..."))
	}
	return out
}

func subset(a, b []string) bool {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	for _, s := range a {
		if !in[s] {
			return false
		}
	}
	return true
}

func sortedUnique(in []string) []string {
	out := openapi.MergeSorted(in, nil)
	sort.Strings(out)
	return out
}
