package githubimport_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/dialect/github/githubimport"
)

// TestDetect: a description is GitHub's when most of its operations carry
// x-github.
func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		marked, of int
		want       bool
	}{{3, 3, true}, {2, 3, true}, {1, 2, false}, {0, 3, false}, {0, 0, false}} {
		t.Run(fmt.Sprintf("%d of %d", tt.marked, tt.of), func(t *testing.T) {
			var paths []string
			for i := range tt.of {
				ext := ""
				if i < tt.marked {
					ext = `"x-github":{},`
				}
				paths = append(paths, fmt.Sprintf(`"/p%d":{"get":{%s"responses":{"200":{"description":"ok"}}}}`, i, ext))
			}
			doc, err := openapi3.NewLoader().LoadFromData([]byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{` + strings.Join(paths, ",") + `}}`))
			if err != nil {
				t.Fatal(err)
			}
			if have := githubimport.Dialect().Detect(doc); have != tt.want {
				t.Errorf("want %v, have %v", tt.want, have)
			}
		})
	}
}
