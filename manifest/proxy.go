package manifest

import (
	"sort"
	"strings"
)

// Proxy is the [proxy] table: `wraith up` also runs the egress sandbox's
// forward proxy (docs/sandbox.md) once every twin is ready.
//
//	[proxy]
//	port = 8080                          # absent or 0: a free port
//	passthrough = ["pypi.org"]           # hosts reached directly, untouched
//	hosts = { "uploads.stripe.com" = "billing" }   # more hosts for a twin
type Proxy struct {
	Port        int
	Passthrough []string
	// Hosts maps a host to the name of the [[twins]] entry that stands in
	// for it, beside the hosts the twin's own twin.toml declares.
	Hosts map[string]string
	Line  int
}

// HostsOf lists the hosts [proxy] adds to the twin instance name, sorted.
func (p *Proxy) HostsOf(name string) []string {
	if p == nil {
		return nil
	}
	var hs []string
	for h, n := range p.Hosts {
		if n == name {
			hs = append(hs, h)
		}
	}
	sort.Strings(hs)
	return hs
}

type rawProxy struct {
	Port        any `toml:"port"`
	Passthrough any `toml:"passthrough"`
	Hosts       any `toml:"hosts"`
}

// proxyKeys is the list shown with an unknown key of [proxy].
const proxyKeys = "port, passthrough, hosts"

func (p *parser) proxy(r *rawProxy, twins []Twin) *Proxy {
	if r == nil {
		return nil
	}
	out := &Proxy{Line: p.pos.line("proxy"), Hosts: map[string]string{}}
	if port := p.port("proxy.port", r.Port); port != nil {
		out.Port = *port
	}
	if r.Passthrough != nil {
		list, ok := r.Passthrough.([]any)
		if !ok {
			p.problem("proxy.passthrough", "must be a list of host names, such as [\"pypi.org\"], not %s", describe(r.Passthrough))
		}
		for i, e := range list {
			s, ok := e.(string)
			if !ok || !validHostName(s) {
				p.problem("proxy.passthrough", "entry %d must be a host name such as \"pypi.org\", not %s", i, describe(e))
				continue
			}
			out.Passthrough = append(out.Passthrough, strings.ToLower(s))
		}
	}
	if r.Hosts != nil {
		tbl, ok := r.Hosts.(map[string]any)
		if !ok {
			p.problem("proxy.hosts", "must be a table of host = \"twin name\", such as { \"api.example.com\" = \"billing\" }, not %s", describe(r.Hosts))
			return out
		}
		names := map[string]bool{}
		for _, t := range twins {
			names[t.Name] = true
		}
		hosts := make([]string, 0, len(tbl))
		for h := range tbl {
			hosts = append(hosts, h)
		}
		sort.Strings(hosts) // problems in a stable order
		for _, h := range hosts {
			v := tbl[h]
			key := "proxy.hosts." + h
			name, ok := v.(string)
			switch {
			case !validHostName(h):
				p.problem(key, "%q is not a host name: use a name such as api.example.com, without a scheme or port", h)
			case !ok:
				p.problem(key, "must be the name of a [[twins]] entry, not %s", describe(v))
			case !names[name]:
				p.problem(key, "names twin %q, which no [[twins]] entry is: use one of the entries' names", name)
			default:
				out.Hosts[strings.ToLower(h)] = name
			}
		}
	}
	return out
}

// validHostName accepts DNS names: labels of letters, digits and hyphens.
func validHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
