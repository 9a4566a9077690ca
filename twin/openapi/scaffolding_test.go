package openapi_test

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/format"
)

// TestEmbeddedTwinsHoldNoScaffolding sweeps what the imported twins
// answer from (every resource's skeleton and every template route's
// body) for what only a description's scaffolding could have put there
// (SPEC §13): a "$ref" member, and in a skeleton, stripe-mock's
// placeholder ids or GitHub's example user.
func TestEmbeddedTwinsHoldNoScaffolding(t *testing.T) {
	for _, name := range []string{"stripe", "github"} {
		t.Run(name, func(t *testing.T) {
			tw, err := format.Load(mustSub(t, name), "embedded twin "+name)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tw.Manifest.Resources {
				for _, bad := range []string{`"$ref"`, `obj_123`, `octocat`, `Hello-World`} {
					if strings.Contains(r.Skeleton, bad) {
						t.Errorf("resource %s: the skeleton holds %s: %s", r.Name, bad, r.Skeleton)
					}
				}
			}
			for _, rt := range tw.Manifest.Routes {
				if strings.Contains(rt.Body, `"$ref"`) {
					t.Errorf("%s %s: the template holds a $ref: %.200s", rt.Method, rt.Path, rt.Body)
				}
			}
		})
	}
}
