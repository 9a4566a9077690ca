package egress

import (
	"context"
	"net"
	"testing"
)

func TestServeDNSAnswersNXDOMAIN(t *testing.T) {
	sb := newSandbox(t)
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	go sb.router.ServeDNS(pc, "run-3")
	res := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
	for _, name := range []string{"example.com", "Example.COM", "api.stripe.com"} {
		_, err := res.LookupHost(context.Background(), name)
		var dnsErr *net.DNSError
		if err == nil || !asDNSError(err, &dnsErr) || !dnsErr.IsNotFound {
			t.Errorf("%s: want not found, have %v", name, err)
		}
	}
	ms := sb.missLines()
	if len(ms) != 1 || ms[0].Host != "example.com" || ms[0].Session != "run-3" || ms[0].Via != ViaDNS {
		t.Errorf("misses: want example.com once in run-3 (a mapped name is no miss), have %+v", ms)
	}
}

func asDNSError(err error, target **net.DNSError) bool {
	e, ok := err.(*net.DNSError)
	if ok {
		*target = e
	}
	return ok
}

func TestNXDOMAINRefusesMalformed(t *testing.T) {
	query := []byte{0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 3, 'f', 'o', 'o', 0, 0, 1, 0, 1}
	name, ans, ok := nxdomain(query)
	if !ok || name != "foo" || ans[3]&0x0f != 3 || ans[2]&0x80 == 0 || ans[0] != 0x12 {
		t.Fatalf("a good query: want foo and an NXDOMAIN answer, have %q %v %x", name, ok, ans)
	}
	tests := map[string][]byte{
		"short":         query[:11],
		"an answer":     append([]byte{0x12, 0x34, 0x81}, query[3:]...),
		"two questions": append(append([]byte{}, query[:5]...), append([]byte{2}, query[6:]...)...),
		"a pointer":     append(append([]byte{}, query[:12]...), 0xc0, 0x0c, 0, 1, 0, 1),
		"cut short":     query[:15],
	}
	for what, q := range tests {
		if _, _, ok := nxdomain(q); ok {
			t.Errorf("%s: want no answer", what)
		}
	}
}
