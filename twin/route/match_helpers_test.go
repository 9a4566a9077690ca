package route_test

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/route"
)

// matchCase is a request and what it matches: the route's template and
// its parameters as name=value; pairs ("" template: no match).
type matchCase struct {
	name, method, path, want, params string
}

// addRoutes adds each route with its template as its value.
func addRoutes(t *testing.T, routes ...[2]string) *route.Router[string] {
	t.Helper()
	r := route.New[string]()
	for _, rt := range routes {
		if err := r.Add(rt[0], rt[1], rt[1]); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// checkMatches runs each case against r.
func checkMatches(t *testing.T, r *route.Router[string], cases []matchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := r.Match(tc.method, tc.path)
			if tc.want == "" {
				if ok {
					t.Errorf("want no match, have %s", m.Template)
				}
				return
			}
			if !ok || m.Template != tc.want || m.Value != tc.want {
				t.Fatalf("want %s, have %q (matched %v)", tc.want, m.Template, ok)
			}
			var b strings.Builder
			for k, v := range m.Params() {
				b.WriteString(k + "=" + v + ";")
			}
			if have := b.String(); have != tc.params {
				t.Errorf("params: want %s, have %s", tc.params, have)
			}
		})
	}
}
