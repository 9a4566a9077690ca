package route_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/wraithdev/wraith/twin/route"
)

func TestMatch(t *testing.T) {
	r := newStripeRouter(t)
	tests := []struct {
		name, method, path string
		want, wantParams   string // want is "" for no match
	}{
		{name: "static", method: "GET", path: "/v1/customers", want: "/v1/customers"},
		{name: "root", method: "GET", path: "/", want: "/"},
		{name: "param", method: "GET", path: "/v1/customers/cus_123", want: "/v1/customers/{customer}", wantParams: "customer=cus_123;"},
		{name: "method picks route", method: "DELETE", path: "/v1/customers/cus_123", want: "/v1/customers/{customer}", wantParams: "customer=cus_123;"},
		{name: "two params", method: "GET", path: "/v1/customers/cus_1/sources/card_2", want: "/v1/customers/{customer}/sources/{id}", wantParams: "customer=cus_1;id=card_2;"},
		{name: "static after params", method: "POST", path: "/v1/customers/cus_1/sources/ba_2/verify", want: "/v1/customers/{customer}/sources/{id}/verify", wantParams: "customer=cus_1;id=ba_2;"},
		{name: "static beats param", method: "GET", path: "/v1/customers/search", want: "/v1/customers/search"},
		{name: "backtrack for method", method: "POST", path: "/v1/customers/search", want: "/v1/customers/{customer}", wantParams: "customer=search;"},
		{name: "backtrack for depth", method: "GET", path: "/v1/customers/search/sources", want: "/v1/customers/{customer}/sources", wantParams: "customer=search;"},
		{name: "backtrack deep", method: "GET", path: "/v1/invoices/upcoming/lines", want: "/v1/invoices/{invoice}/lines", wantParams: "invoice=upcoming;"},
		{name: "encoded text kept raw", method: "GET", path: "/v1/customers/cus%2F1", want: "/v1/customers/{customer}", wantParams: "customer=cus%2F1;"},
		{name: "unicode", method: "GET", path: "/v1/customers/ünï", want: "/v1/customers/{customer}", wantParams: "customer=ünï;"},
		{name: "trailing slash", method: "GET", path: "/v1/customers/"},
		{name: "trailing slash after param", method: "GET", path: "/v1/customers/cus_1/"},
		{name: "double slash", method: "GET", path: "/v1//customers"},
		{name: "empty param", method: "GET", path: "/v1/customers//sources"},
		{name: "decoded slash splits", method: "GET", path: "/v1/customers/cus/1"},
		{name: "too long", method: "GET", path: "/v1/customers/cus_1/sources/card_2/verify/x"},
		{name: "unknown", method: "GET", path: "/v1/nothing"},
		{name: "no leading slash", method: "GET", path: "v1/customers"},
		{name: "empty path", method: "GET", path: ""},
		{name: "path case", method: "GET", path: "/V1/customers"},
		{name: "method case", method: "get", path: "/v1/customers"},
		{name: "empty method", method: "", path: "/v1/customers"},
		{name: "wrong method", method: "DELETE", path: "/v1/customers"},
		{name: "wrong method at root", method: "POST", path: "/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := r.Match(tt.method, tt.path)
			if have := m.Template; have != tt.want || ok != (tt.want != "") {
				t.Fatalf("Match(%q, %q): want %q, have %q (ok %v)", tt.method, tt.path, tt.want, have, ok)
			}
			if !ok {
				return
			}
			if want, have := tt.method+" "+tt.want, m.Value; have != want {
				t.Errorf("value: want %q, have %q", want, have)
			}
			if have := params(&m); have != tt.wantParams {
				t.Errorf("params: want %q, have %q", tt.wantParams, have)
			}
		})
	}
}

func TestMatchParam(t *testing.T) {
	r := route.New[int]()
	if err := r.Add("GET", "/a/{w}/{x}/b/{y}/{z}", 1); err != nil {
		t.Fatal(err)
	}
	m, ok := r.Match("GET", "/a/1/2/b/3/4")
	if !ok {
		t.Fatal("no match")
	}
	for name, want := range map[string]string{"w": "1", "x": "2", "y": "3", "z": "4", "b": "", "": ""} {
		if have := m.Param(name); have != want {
			t.Errorf("Param(%q): want %q, have %q", name, want, have)
		}
	}
	if want, have := "w=1;x=2;y=3;z=4;", params(&m); have != want {
		t.Errorf("Params: want %q, have %q", want, have)
	}
	for name := range m.Params() {
		if name != "w" {
			t.Errorf("Params went on after break, to %q", name)
		}
		break
	}
}

func TestPathKnown(t *testing.T) {
	r := newStripeRouter(t)
	tests := []struct {
		path string
		want bool
	}{
		{"/v1/customers", true},
		{"/v1/customers/search", true},
		{"/v1/balance", true},
		{"/", true},
		{"/v1/charges/ch_1/capture", true},
		{"/v1/invoices/upcoming/lines", true},
		{"/v1/customers/", false},
		{"/v1/nothing", false},
		{"/v1", false},
		{"", false},
		{"v1/customers", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if have := r.PathKnown(tt.path); have != tt.want {
				t.Errorf("PathKnown(%q): want %v, have %v", tt.path, tt.want, have)
			}
		})
	}
}

func TestMatchAllocs(t *testing.T) {
	r := newStripeRouter(t)
	tests := []struct{ name, method, path string }{
		{"param hit", "GET", "/v1/customers/cus_1/sources/card_2"},
		{"static hit", "GET", "/v1/customers/search"},
		{"backtracking hit", "GET", "/v1/invoices/upcoming/lines"},
		{"miss", "GET", "/v1/customers/cus_1/nothing"},
		{"wrong method", "PUT", "/v1/customers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have := testing.AllocsPerRun(1000, func() {
				m, _ := r.Match(tt.method, tt.path)
				_ = m.Param("customer")
				for range m.Params() {
				}
				_ = r.PathKnown(tt.path)
			})
			if have != 0 {
				t.Errorf("allocations: want 0, have %v", have)
			}
		})
	}
}

// TestMatchConcurrent matches from many goroutines at once; run it with
// -race.
func TestMatchConcurrent(t *testing.T) {
	r := newStripeRouter(t)
	paths := make([]string, len(stripeRoutes))
	for i, rt := range stripeRoutes {
		paths[i] = expand(t, rt.Template, "x1", "x2", "x3", "x4")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				j := (g + i) % len(stripeRoutes)
				rt, path := stripeRoutes[j], paths[j]
				m, ok := r.Match(rt.Method, path)
				if !ok || m.Template != rt.Template || !r.PathKnown(path) {
					errs <- fmt.Errorf("Match(%q, %q): want %q, have %q (ok %v)", rt.Method, path, rt.Template, m.Template, ok)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
