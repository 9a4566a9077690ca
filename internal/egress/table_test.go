package egress

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultHosts(t *testing.T) {
	tests := []struct {
		upstream string
		want     []string
	}{
		{"https://api.stripe.com", []string{"api.stripe.com"}},
		{"https://API.Stripe.com:443/v1", []string{"api.stripe.com"}},
		{"https://api.github.com", []string{"api.github.com", "github.com"}},
		{"", nil},
		{"not a url", nil},
	}
	for _, tt := range tests {
		if have := DefaultHosts(tt.upstream); !reflect.DeepEqual(have, tt.want) {
			t.Errorf("DefaultHosts(%q): want %q, have %q", tt.upstream, tt.want, have)
		}
	}
}

func TestTableLookup(t *testing.T) {
	tbl, err := NewTable([]Twin{
		{Name: "stripe", URL: "http://127.0.0.1:1", Hosts: []string{"api.stripe.com"}},
		{Name: "github", URL: "http://127.0.0.1:2", Hosts: []string{"api.github.com", "github.com"}},
	}, []string{"pypi.org"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host string
		twin string // "" = unmapped
	}{
		{"api.stripe.com", "stripe"},
		{"API.STRIPE.COM:443", "stripe"},
		{"api.stripe.com.", "stripe"},
		{"github.com", "github"},
		{"uploads.stripe.com", ""},
		{"stripe.com", ""},
		{"api.stripe.com.evil.example", ""},
		{"pypi.org", ""},
	}
	for _, tt := range tests {
		tg, ok := tbl.Lookup(tt.host)
		if have := tg.Twin; ok != (tt.twin != "") || have != tt.twin {
			t.Errorf("Lookup(%q): want %q, have %q (found %v)", tt.host, tt.twin, have, ok)
		}
	}
	if !tbl.Passthrough("PyPI.org:443") || tbl.Passthrough("api.stripe.com") {
		t.Error("Passthrough: want pypi.org only")
	}
	if want, have := []string{"api.github.com", "api.stripe.com", "github.com"}, tbl.Hosts(); !reflect.DeepEqual(want, have) {
		t.Errorf("Hosts: want %q, have %q", want, have)
	}
}

func TestTableRefuses(t *testing.T) {
	tests := []struct {
		name  string
		twins []Twin
		pass  []string
		want  string
		claim bool
	}{
		{"two twins claim one host", []Twin{
			{Name: "checkout", URL: "http://127.0.0.1:1", Hosts: []string{"api.stripe.com"}},
			{Name: "billing", URL: "http://127.0.0.1:2", Hosts: []string{"api.stripe.com"}},
		}, nil, "api.stripe.com is claimed by checkout and billing: pick the twins the sandbox routes to with --twin NAME", true},
		{"passthrough of a served host", []Twin{{Name: "stripe", URL: "http://127.0.0.1:1", Hosts: []string{"api.stripe.com"}}},
			[]string{"api.stripe.com"}, "passthrough host api.stripe.com is also served by twin stripe", false},
		{"a twin without a URL", []Twin{{Name: "stripe", Hosts: []string{"api.stripe.com"}}}, nil, "twin stripe: URL", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewTable(tt.twins, tt.pass)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want an error with %q, have %v", tt.want, err)
			}
			var claim *ClaimError
			if have := errors.As(err, &claim); have != tt.claim {
				t.Errorf("ClaimError: want %v, have %v", tt.claim, have)
			}
		})
	}
}
