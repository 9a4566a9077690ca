package manifest

import (
	"reflect"
	"testing"
)

func TestParseProxy(t *testing.T) {
	src := `
[[twins]]
name = "billing"

[[twins]]
name = "gh"
twin = "github"

[proxy]
port = 8080
passthrough = ["PyPI.org"]
hosts = { "uploads.stripe.com" = "billing", "api.example.com" = "billing", "codeload.github.com" = "gh" }
`
	p, err := Parse("/p/wraith-project.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Proxy{Port: 8080, Passthrough: []string{"pypi.org"}, Line: 9, Hosts: map[string]string{
		"uploads.stripe.com": "billing", "api.example.com": "billing", "codeload.github.com": "gh",
	}}
	if !reflect.DeepEqual(p.Proxy, want) {
		t.Errorf("want %+v, have %+v", want, p.Proxy)
	}
	for _, c := range []struct {
		twin string
		want []string
	}{
		{"billing", []string{"api.example.com", "uploads.stripe.com"}},
		{"gh", []string{"codeload.github.com"}},
		{"other", nil},
	} {
		if have := p.Proxy.HostsOf(c.twin); !reflect.DeepEqual(have, c.want) {
			t.Errorf("HostsOf(%s): want %q, have %q", c.twin, c.want, have)
		}
	}
}

func TestParseNoProxy(t *testing.T) {
	p, err := Parse("/p/wraith-project.toml", []byte("[[twins]]\nname = \"billing\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Proxy != nil {
		t.Errorf("want no [proxy], have %+v", p.Proxy)
	}
	if have := p.Proxy.HostsOf("billing"); have != nil {
		t.Errorf("HostsOf without [proxy]: want nil, have %q", have)
	}
}
