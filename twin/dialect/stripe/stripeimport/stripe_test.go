package stripeimport_test

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/dialect/stripe/stripeimport"
)

// TestDetect: a description is Stripe's when a schema carries
// x-resourceId or x-stripeResource, and not otherwise.
func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		name, schema string
		want         bool
	}{
		{"x-resourceId", `{"type":"object","x-resourceId":"widget"}`, true},
		{"x-stripeResource", `{"type":"object","x-stripeResource":{"class_name":"Widget"}}`, true},
		{"neither", `{"type":"object","x-github":{}}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := openapi3.NewLoader().LoadFromData([]byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{"W":` + tt.schema + `}}}`))
			if err != nil {
				t.Fatal(err)
			}
			if have := stripeimport.Dialect().Detect(doc); have != tt.want {
				t.Errorf("want %v, have %v", tt.want, have)
			}
		})
	}
}
