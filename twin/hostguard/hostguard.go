// Package hostguard keeps web pages away from the loopback servers Wraith
// runs for a developer: a twin's control plane and the recording proxy,
// which holds a live provider credential.
//
// A page in a browser cannot read a loopback server's answers (no CORS
// headers are ever sent), but it can make the browser send requests there:
// a cross-site form POST, an <img> GET, or, with DNS rebinding, requests to
// http://evil.example:PORT/ after evil.example starts resolving to
// 127.0.0.1. Check refuses them, as Caddy guards its admin endpoint:
//
//   - a Host that is not "localhost", an IPv4 address in 127.0.0.0/8 or
//     [::1] (with or without a numeric port) — the rebinding page's Host
//     is its own name;
//   - an Origin (or, without one, a Referer) that is not http(s) on such a
//     host — a cross-site form or fetch;
//   - Sec-Fetch-Site: cross-site from a request whose origin the browser
//     hid (no Origin, no Referer); under [SameOriginOnly], any
//     Sec-Fetch-Site but same-origin and none.
//
// Host names are compared as written and never resolved: resolving is
// exactly what a rebinding attacker controls. Clients that are not browsers
// (curl, SDKs, agents) send none of these headers and are not affected.
//
// Off loopback the checks cannot tell friend from foe, so a server bound
// there needs a bearer token instead: [LoopbackBind] decides which case a
// bind address is, [TokenFromEnv] reads the token from the environment and
// [Token] compares it in constant time. [ListenAddr] turns a --host and a
// port into a listen address, IPv6 literals included.
//
// This package depends on the standard library only.
package hostguard

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Policy is how strictly Check treats requests from browsers.
type Policy int

const (
	// LoopbackOrigins lets pages served from a loopback origin call the
	// server (a local dev front end on localhost:5173 driving a twin's
	// control plane).
	LoopbackOrigins Policy = iota
	// SameOriginOnly also refuses every request a browser marks as coming
	// from another origin (Sec-Fetch-Site cross-site or same-site), even a
	// loopback one: for a server that spends a live credential on each
	// request, where no page has a reason to call it.
	SameOriginOnly
)

// Reason says which check refused a request.
type Reason int

const (
	// ForeignHost: the Host header does not name loopback.
	ForeignHost Reason = iota + 1
	// ForeignOrigin: the Origin, the Referer or Sec-Fetch-Site says the
	// request comes from another site.
	ForeignOrigin
)

// Refusal is why Check refused a request.
type Refusal struct {
	Reason Reason
	// Header is the header that decided: Host, Origin, Referer or
	// Sec-Fetch-Site.
	Header string
	// Value is what that header said ("" for a missing Host).
	Value string
}

// Check reports why a loopback-bound server must refuse r, or nil when r
// may proceed.
func Check(r *http.Request, p Policy) *Refusal {
	if !LoopbackHost(r.Host) {
		return &Refusal{ForeignHost, "Host", r.Host}
	}
	header, origin := BrowserOrigin(r)
	if header != "" && !LoopbackOrigin(origin) {
		return &Refusal{ForeignOrigin, header, origin}
	}
	site := strings.ToLower(strings.Join(r.Header.Values("Sec-Fetch-Site"), ", "))
	switch site {
	case "", "same-origin", "none": // not a browser, the same origin, or the user typed the URL
		return nil
	case "same-site":
		if p == SameOriginOnly {
			return &Refusal{ForeignOrigin, "Sec-Fetch-Site", site}
		}
		return nil
	default: // cross-site, or a value no browser sends: fail closed
		if p == SameOriginOnly || header == "" {
			return &Refusal{ForeignOrigin, "Sec-Fetch-Site", site}
		}
		return nil
	}
}

// BrowserOrigin returns where a browser says r comes from: the Origin
// header, else the Referer, and which of the two it was. header is "" when
// neither is sent, as with curl, SDKs and agents.
func BrowserOrigin(r *http.Request) (header, origin string) {
	if v := r.Header.Values("Origin"); len(v) > 0 {
		return "Origin", strings.Join(v, ", ")
	}
	if v := r.Header.Values("Referer"); len(v) > 0 {
		return "Referer", strings.Join(v, ", ")
	}
	return "", ""
}

// LoopbackOrigin reports whether origin (or a Referer URL) is http(s) on a
// loopback host. "null" (sandboxed frames, file: pages) is not.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return false
	}
	return LoopbackHost(u.Host)
}

// LoopbackHost reports whether a Host value (with or without a port) names
// loopback: "localhost", an address in 127.0.0.0/8, or ::1. Only canonical
// address spellings count (not 2130706433 nor 0x7f.1), and names are not
// resolved.
func LoopbackHost(host string) bool {
	h := host
	if hp, port, err := net.SplitHostPort(host); err == nil {
		if !validPort(port) {
			return false
		}
		h = hp
	} else if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Zone() == "" && a.IsLoopback()
}

func validPort(p string) bool {
	if p == "" || len(p) > 5 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return true
}

// ListenAddr is the address to listen on for a --host value and a port.
// An IPv6 literal may be given bare (::1) or bracketed ([::1]), as users
// copy it from a URL.
func ListenAddr(host string, port int) string {
	return net.JoinHostPort(Unbracket(host), strconv.Itoa(port))
}

// Unbracket removes the brackets of a bracketed IPv6 literal.
func Unbracket(host string) string {
	if len(host) >= 2 && host[0] == '[' && host[len(host)-1] == ']' {
		return host[1 : len(host)-1]
	}
	return host
}
