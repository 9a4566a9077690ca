package webhook

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// refusal is an endpoint the deliverer will not post to.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

// dial is the transport's: it connects only to loopback addresses, or to
// a host Options.Allow names. A name is resolved here and the connection
// made to an address checked here, so what was checked is where the
// delivery goes (a name that resolves elsewhere on a second lookup
// changes nothing).
func (d *Deliverer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &refusal{fmt.Sprintf("refused: %q names no host and port", addr)}
	}
	addrs, err := d.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	allowed := d.allowed(host)
	for _, a := range addrs {
		if !allowed && !a.IsLoopback() {
			return nil, &refusal{fmt.Sprintf("refused: %s resolves to %s, not a loopback address: the twin posts webhooks to loopback only; allow the host with --webhook-allow %s", host, a, host)}
		}
	}
	if n, err := strconv.ParseUint(port, 10, 16); err == nil && d.o.Own != nil {
		for _, a := range addrs {
			if d.o.Own(netip.AddrPortFrom(a, uint16(n))) {
				return nil, &refusal{fmt.Sprintf("refused: %s is this twin's own address: the twin does not post webhooks to itself; point the endpoint at your application", net.JoinHostPort(a.String(), port))}
			}
		}
	}
	var dialer net.Dialer
	var last error
	for _, a := range addrs {
		c, err := dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// resolve returns host's addresses: itself when it is one.
func (d *Deliverer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	addrs, err := d.o.Resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, &refusal{fmt.Sprintf("refused: %s does not resolve (%v): use a loopback address, or allow the host with --webhook-allow %s", host, err, host)}
	}
	if len(addrs) == 0 {
		return nil, &refusal{fmt.Sprintf("refused: %s resolves to no address", host)}
	}
	for i, a := range addrs {
		addrs[i] = a.Unmap()
	}
	return addrs, nil
}

// allowed reports whether Options.Allow names host.
func (d *Deliverer) allowed(host string) bool {
	return slices.Contains(d.o.Allow, strings.ToLower(strings.Trim(host, "[]")))
}
