package pack

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// secretProblems finds known credential shapes (scrub.FindKnownCredential:
// Stripe, GitHub, AWS, Google and Slack keys, bearer tokens, private keys,
// JWTs) anywhere in the twin's files: in every string and key of a JSON
// file, named by its JSON path, and in every line of any other file. A
// twin is shared; a pack must not carry what a recording should never
// have held.
func secretProblems(fsys fs.FS, paths []string, where string) (format.Problems, error) {
	var probs format.Problems
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		report := func(at, kind string) {
			probs = append(probs, fmt.Sprintf("%s/%s: %s holds a credential (%s)", where, p, at, kind))
		}
		if strings.HasSuffix(p, ".json") && json.Valid(b) {
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err == nil {
				walkStrings(v, "$", report)
				continue
			}
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, len(b)+1)
		for line := 1; sc.Scan(); line++ {
			if kind := scrub.FindKnownCredential(sc.Text()); kind != "" {
				report("line "+strconv.Itoa(line), kind)
			}
		}
	}
	return probs, nil
}

// walkStrings calls report for every string or key under v, at its JSON
// path ($.response.body.data[0].secret), that holds a known credential.
func walkStrings(v any, path string, report func(at, kind string)) {
	switch t := v.(type) {
	case string:
		if kind := scrub.FindKnownCredential(t); kind != "" {
			report(path, kind)
		}
	case []any:
		for i, e := range t {
			walkStrings(e, path+"["+strconv.Itoa(i)+"]", report)
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			at := path + "." + k
			if strings.ContainsAny(k, ".[]\" ") {
				at = path + "[" + strconv.Quote(k) + "]"
			}
			if kind := scrub.FindKnownCredential(k); kind != "" {
				report(at+" (the key)", kind)
			}
			walkStrings(t[k], at, report)
		}
	}
}
