package egress

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// Twin is one twin the sandbox can reach: where it listens and which
// provider hosts it stands in for.
type Twin struct {
	Name  string   // instance name, for messages and the misses log
	URL   string   // where the twin listens, http://127.0.0.1:PORT
	Hosts []string // provider hosts, lower case, without a port
}

// extraHosts are hosts a provider serves beside its API host, which a twin
// of that API answers too: git over smart HTTP goes to github.com, the
// REST API to api.github.com, and the github twin serves both.
var extraHosts = map[string][]string{
	"api.github.com": {"github.com"},
}

// DefaultHosts is the hosts a twin stands in for when its twin.toml
// declares none: the host of its upstream, and that provider's extra
// hosts. A twin without an upstream has none.
func DefaultHosts(upstream string) []string {
	u, err := url.Parse(upstream)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	h := strings.ToLower(u.Hostname())
	return append([]string{h}, extraHosts[h]...)
}

// Target is where a mapped host goes.
type Target struct {
	Twin string
	URL  *url.URL
}

// Table maps hosts to twins. It is built once and only read after, so
// lookups take no lock.
type Table struct {
	hosts       map[string]Target
	passthrough map[string]bool
}

// NewTable builds the table of twins and passthrough hosts. A host claimed
// by two twins is an error naming both, since the sandbox cannot guess
// which of them the program meant.
func NewTable(twins []Twin, passthrough []string) (*Table, error) {
	t := &Table{hosts: map[string]Target{}, passthrough: map[string]bool{}}
	claims := map[string][]string{}
	for _, tw := range twins {
		u, err := url.Parse(tw.URL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("twin %s: URL %q is not an http URL", tw.Name, tw.URL)
		}
		for _, h := range tw.Hosts {
			h = normalHost(h)
			if h == "" {
				continue
			}
			if !slices.Contains(claims[h], tw.Name) {
				claims[h] = append(claims[h], tw.Name)
			}
			t.hosts[h] = Target{Twin: tw.Name, URL: u}
		}
	}
	var clash []string
	for h, names := range claims {
		if len(names) > 1 {
			clash = append(clash, fmt.Sprintf("%s is claimed by %s", h, strings.Join(names, " and ")))
		}
	}
	if len(clash) > 0 {
		sort.Strings(clash)
		return nil, &ClaimError{Clashes: clash}
	}
	for _, h := range passthrough {
		h = normalHost(h)
		if _, mapped := t.hosts[h]; mapped {
			return nil, fmt.Errorf("passthrough host %s is also served by twin %s: drop it from the passthrough list", h, t.hosts[h].Twin)
		}
		t.passthrough[h] = true
	}
	return t, nil
}

// ClaimError says two twins stand in for one host.
type ClaimError struct{ Clashes []string }

func (e *ClaimError) Error() string {
	return strings.Join(e.Clashes, "; ") + ": pick the twins the sandbox routes to with --twin NAME"
}

// Lookup finds the twin for host (a host name, with or without a port).
func (t *Table) Lookup(host string) (Target, bool) {
	tg, ok := t.hosts[normalHost(host)]
	return tg, ok
}

// Passthrough reports whether host may be reached directly.
func (t *Table) Passthrough(host string) bool { return t.passthrough[normalHost(host)] }

// Hosts lists the mapped hosts, sorted.
func (t *Table) Hosts() []string {
	hs := make([]string, 0, len(t.hosts))
	for h := range t.hosts {
		hs = append(hs, h)
	}
	sort.Strings(hs)
	return hs
}

// normalHost lower-cases host and drops a port and a trailing dot, so
// "API.Stripe.com.:443" and "api.stripe.com" are one key.
func normalHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}
