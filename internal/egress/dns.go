package egress

import (
	"errors"
	"net"
	"strings"
	"sync"
)

// maxDNSNames bounds the names ServeDNS remembers having recorded, so a
// program looking up endless names cannot grow the set without end.
const maxDNSNames = 4096

// ServeDNS answers the name lookups of a sandboxed program on pc until pc
// is closed. The sandbox's hosts resolve from its hosts file before any
// lookup gets here, so every name asked here is one no twin serves: each
// gets NXDOMAIN at once, and is recorded as a miss (once per name).
func (r *Router) ServeDNS(pc net.PacketConn, session string) error {
	var mu sync.Mutex
	seen := map[string]bool{}
	buf := make([]byte, 512)
	for {
		n, addr, err := pc.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		name, answer, ok := nxdomain(buf[:n])
		if !ok {
			continue // not a query we can read: no answer, as a server would drop it
		}
		pc.WriteTo(answer, addr)
		if _, mapped := r.table.Lookup(name); mapped || name == "" {
			continue
		}
		mu.Lock()
		first := !seen[name] && len(seen) < maxDNSNames
		seen[name] = true
		mu.Unlock()
		if first {
			r.misses.Record(Miss{Session: session, Host: name, Via: ViaDNS, Reason: "no twin serves this host; the name does not resolve in the sandbox"})
		}
	}
}

// nxdomain reads a DNS query (RFC 1035 §4.1) and builds its NXDOMAIN
// answer: the header with QR set and RCODE 3, and the question echoed.
func nxdomain(q []byte) (name string, answer []byte, ok bool) {
	if len(q) < 12 || q[2]&0x80 != 0 { // too short, or itself an answer
		return "", nil, false
	}
	if q[4] != 0 || q[5] != 1 { // exactly one question, as every resolver sends
		return "", nil, false
	}
	var labels []string
	i := 12
	for {
		if i >= len(q) {
			return "", nil, false
		}
		l := int(q[i])
		i++
		if l == 0 {
			break
		}
		if l > 63 || i+l > len(q) || len(labels) > 127 {
			return "", nil, false // a pointer or an overlong name: not in a query
		}
		labels = append(labels, string(q[i:i+l]))
		i += l
	}
	if i+4 > len(q) {
		return "", nil, false
	}
	end := i + 4 // QTYPE and QCLASS
	answer = make([]byte, end)
	copy(answer, q[:end])
	answer[2] = 0x80 | q[2]&0x01 // QR, and RD as asked; not authoritative
	answer[3] = 0x03             // NXDOMAIN
	for j := 6; j < 12; j++ {    // no answer, authority or additional records
		answer[j] = 0
	}
	return strings.ToLower(strings.Join(labels, ".")), answer, true
}
