package route_test

import (
	"reflect"
	"testing"

	"github.com/wraithdev/wraith/twin/route"
)

func TestAddErrors(t *testing.T) {
	tests := []struct {
		name, method, template, want string
	}{
		{"no method", "", "/v1/customers", `route "/v1/customers" has no method`},
		{"empty", "GET", "", `template "" does not start with "/"`},
		{"relative", "GET", "v1/customers", `template "v1/customers" does not start with "/"`},
		{"trailing slash", "GET", "/v1/customers/", `template "/v1/customers/" has an empty segment 3: remove the extra or trailing "/"`},
		{"double slash", "GET", "/v1//customers", `template "/v1//customers" has an empty segment 2: remove the extra or trailing "/"`},
		{"empty param name", "GET", "/v1/customers/{}", `template "/v1/customers/{}" has an empty parameter name`},
		{"unclosed brace", "GET", "/v1/customers/{id", `template "/v1/customers/{id" has an unclosed "{" in segment "{id"`},
		{"unmatched brace", "GET", "/v1/customers/id}", `template "/v1/customers/id}" has an unmatched "}" in segment "id}"`},
		{"reversed braces", "GET", "/v1/}id{", `template "/v1/}id{" has an unmatched "}" in segment "}id{"`},
		{"param with prefix", "GET", "/v1/files/x{id}", `template "/v1/files/x{id}" has a parameter that is not a whole segment nor followed only by static text: "x{id}" (want {name} or {name}suffix)`},
		{"two params in a segment", "GET", "/v1/{a}{b}", `template "/v1/{a}{b}" has a parameter that is not a whole segment nor followed only by static text: "{a}{b}" (want {name} or {name}suffix)`},
		{"suffix holding a brace", "GET", "/v1/{a}.x}", `template "/v1/{a}.x}" has a parameter that is not a whole segment nor followed only by static text: "{a}.x}" (want {name} or {name}suffix)`},
		{"rest with suffix", "GET", "/v1/{a...}.json", `template "/v1/{a...}.json" has a rest parameter followed by text: "{a...}.json"`},
		{"bad name", "GET", "/v1/{a-b}", `template "/v1/{a-b}" has a parameter name "a-b" with '-' in it: use letters, digits and _`},
		{"repeated name", "GET", "/v1/{id}/x/{id}", `template "/v1/{id}/x/{id}" names two parameters {id}`},
		{"too many params", "GET", "/{a}/{b}/{c}/{d}/{e}", `template "/{a}/{b}/{c}/{d}/{e}" has more than 4 parameters`},
		{"duplicate", "GET", "/v1/customers/{customer}", `route GET /v1/customers/{customer} is already added`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := route.New[int]()
			for _, tmpl := range []string{"/v1/customers/{customer}", "/v1/customers/{customer}/sources/{id}"} {
				if err := r.Add("GET", tmpl, 0); err != nil {
					t.Fatal(err)
				}
			}
			before := r.Routes()
			err := r.Add(tt.method, tt.template, 1)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Add(%q, %q): want error %q, have %v", tt.method, tt.template, tt.want, err)
			}
			if have := r.Routes(); !reflect.DeepEqual(have, before) {
				t.Errorf("routes changed by a failed Add: want %v, have %v", before, have)
			}
			if _, ok := r.Match("GET", "/v1/customers/x/sources"); ok {
				t.Error("a failed Add left a route behind")
			}
		})
	}
}

// TestAddFailureLeavesNoName checks that a name from a failed Add does not
// block a later one.
func TestAddFailureLeavesNoName(t *testing.T) {
	r := route.New[int]()
	if err := r.Add("GET", "/v1/{a}/{b}/{c}/{d}/{e}", 0); err == nil {
		t.Fatal("want an error for five parameters")
	}
	if err := r.Add("GET", "/v1/{id}", 0); err != nil {
		t.Fatalf("want no error, have %v", err)
	}
}

func TestRoutes(t *testing.T) {
	r := route.New[int]()
	for _, rt := range []route.RouteInfo{
		{"POST", "/v1/customers"},
		{"GET", "/v1/customers/{customer}"},
		{"GET", "/v1/customers"},
		{"DELETE", "/v1/customers/{customer}"},
		{"GET", "/"},
	} {
		if err := r.Add(rt.Method, rt.Template, 0); err != nil {
			t.Fatal(err)
		}
	}
	want := []route.RouteInfo{
		{"GET", "/"},
		{"GET", "/v1/customers"},
		{"POST", "/v1/customers"},
		{"DELETE", "/v1/customers/{customer}"},
		{"GET", "/v1/customers/{customer}"},
	}
	if have := r.Routes(); !reflect.DeepEqual(have, want) {
		t.Errorf("want %v, have %v", want, have)
	}
}

func TestEmptyRouter(t *testing.T) {
	r := route.New[int]()
	for _, path := range []string{"/", "/v1", ""} {
		if _, ok := r.Match("GET", path); ok {
			t.Errorf("Match(GET, %q) on an empty router matched", path)
		}
		if r.PathKnown(path) {
			t.Errorf("PathKnown(%q) on an empty router is true", path)
		}
	}
	if have := r.Routes(); len(have) != 0 {
		t.Errorf("want no routes, have %v", have)
	}
}

// TestNamesPerRoute: templates that name one position differently each
// answer their own names, so a resource's item ({id}) and a nested
// collection under it ({customer}) keep their descriptions' names.
func TestNamesPerRoute(t *testing.T) {
	r := route.New[string]()
	for _, tmpl := range []string{"/v1/customers/{id}", "/v1/customers/{customer}/tax_ids", "/v1/customers/{customer}/tax_ids/{tax}"} {
		if err := r.Add("GET", tmpl, tmpl); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ path, template, param, want string }{
		{"/v1/customers/cus_1", "/v1/customers/{id}", "id", "cus_1"},
		{"/v1/customers/cus_1", "/v1/customers/{id}", "customer", ""},
		{"/v1/customers/cus_2/tax_ids", "/v1/customers/{customer}/tax_ids", "customer", "cus_2"},
		{"/v1/customers/cus_2/tax_ids", "/v1/customers/{customer}/tax_ids", "id", ""},
		{"/v1/customers/cus_3/tax_ids/txi_1", "/v1/customers/{customer}/tax_ids/{tax}", "tax", "txi_1"},
	}
	for _, tt := range tests {
		m, ok := r.Match("GET", tt.path)
		if !ok || m.Template != tt.template {
			t.Fatalf("%s: want %s, have %s (ok %v)", tt.path, tt.template, m.Template, ok)
		}
		if have := m.Param(tt.param); have != tt.want {
			t.Errorf("%s: {%s}: want %q, have %q", tt.path, tt.param, tt.want, have)
		}
	}
}
