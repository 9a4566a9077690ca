package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/control"
	"github.com/wraithdev/wraith/twin/engine"
)

// guard decides who may call the control plane (SPEC §4 "Auth").
//
// On a loopback bind it refuses control calls that a browser could make on
// a web page's behalf: a Host that is not a loopback name or address (DNS
// rebinding: evil.example resolving to 127.0.0.1) and an Origin (or, when
// there is none, a Referer) that is not a loopback origin. This is how
// Caddy guards its admin endpoint. With a token, every control call but
// health, ready and info must carry "Authorization: Bearer <token>".
//
// Application routes are not guarded: they serve agents, often through
// proxies and custom host names, and the SPEC leaves them open.
type guard struct {
	// loopback is true when the listener is bound to loopback addresses
	// only; it turns on the Host and Origin checks.
	loopback bool
	// tokenSum is the SHA-256 of the bearer token, nil when there is no
	// token. Comparing fixed-size digests in constant time leaks neither
	// the token's bytes nor its length.
	tokenSum []byte
}

func newGuard(loopback bool, token string) *guard {
	g := &guard{loopback: loopback}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		g.tokenSum = sum[:]
	}
	return g
}

// bearerChallenge is the WWW-Authenticate value of a 401 (RFC 6750 §3).
const bearerChallenge = `Bearer realm="wraith-control"`

// allow reports whether the control request r may proceed, answering it
// with the error shape when it may not.
func (g *guard) allow(w http.ResponseWriter, r *http.Request) bool {
	if p := r.URL.Path; path.Clean(p) != p {
		// ServeMux would answer a redirect to the clean path; a control
		// call with dot segments or doubled slashes is a mistake or a probe.
		engine.WriteError(w, http.StatusBadRequest, "invalid-path",
			fmt.Sprintf("control path %q has . or .. segments, a doubled slash or a trailing slash: use the paths listed in the ready JSON", p), nil)
		return false
	}
	if control.Exempt(r.URL.Path) {
		return true
	}
	if g.loopback {
		if !loopbackHostHeader(r.Host) {
			engine.WriteError(w, http.StatusForbidden, "control-forbidden-host",
				fmt.Sprintf("control calls to a loopback-bound twin must name it by a loopback Host (localhost, 127.0.0.1, [::1]), not %q: this blocks DNS-rebinding attacks from web pages", r.Host), nil)
			return false
		}
		if origin, ok := browserOrigin(r); ok && !loopbackOrigin(origin) {
			engine.WriteError(w, http.StatusForbidden, "control-forbidden-origin",
				fmt.Sprintf("control calls from the web origin %q are refused: only pages served from localhost may call a loopback-bound twin's control plane", origin), nil)
			return false
		}
	}
	if g.tokenSum != nil && !g.authorized(r) {
		challenge := bearerChallenge
		if len(r.Header.Values("Authorization")) > 0 {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		engine.WriteError(w, http.StatusUnauthorized, "control-unauthorized",
			"this control endpoint needs \"Authorization: Bearer <token>\" with the token from the variable named by --control-token-env", nil)
		return false
	}
	return true
}

// authorized reports whether r carries exactly one Authorization header
// with the right bearer token.
func (g *guard) authorized(r *http.Request) bool {
	vals := r.Header.Values("Authorization")
	if len(vals) != 1 {
		return false
	}
	scheme, token, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(sum[:], g.tokenSum) == 1
}

// browserOrigin returns the origin a browser says a request comes from:
// the Origin header, else the Referer. ok is false when neither is sent,
// as with curl, SDKs and agents.
func browserOrigin(r *http.Request) (string, bool) {
	if v := r.Header.Values("Origin"); len(v) > 0 {
		return strings.Join(v, ", "), true
	}
	if v := r.Header.Values("Referer"); len(v) > 0 {
		return strings.Join(v, ", "), true
	}
	return "", false
}

// loopbackOrigin reports whether origin is http(s) on a loopback host.
// "null" (sandboxed frames, file: pages) is not.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return false
	}
	return loopbackHostHeader(u.Host)
}

// loopbackHostHeader reports whether a Host value (with or without a port)
// names loopback: "localhost", an address in 127.0.0.0/8, or ::1. Other
// names are refused without resolving them: resolving is exactly what a
// DNS-rebinding attacker controls.
func loopbackHostHeader(host string) bool {
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

// resolver looks up a host name's addresses.
type resolver func(ctx context.Context, host string) ([]netip.Addr, error)

func defaultResolver(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// loopbackBind reports whether binding host listens on loopback only:
// 127.0.0.0/8, ::1, "localhost", or a name all of whose addresses are
// loopback. An empty host binds every interface, so it is not loopback.
func loopbackBind(host string, lookup resolver) (bool, error) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if h == "" {
		return false, nil
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.IsLoopback(), nil
	}
	if strings.EqualFold(h, "localhost") {
		return true, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := lookup(ctx, h)
	if err != nil {
		return false, usagef("--host %q: cannot resolve it (%v): use an IP address such as 127.0.0.1", host, err)
	}
	for _, a := range addrs {
		if !a.IsLoopback() {
			return false, nil
		}
	}
	return len(addrs) > 0, nil
}

// controlAccess works out the control plane's guard from the bind address
// and the token variable. A non-loopback bind without a token, and a token
// variable that is unset or empty, are usage errors.
func controlAccess(cfg Config, getenv func(string) string, lookup resolver) (*guard, error) {
	loopback, err := loopbackBind(cfg.Host, lookup)
	if err != nil {
		return nil, err
	}
	token := ""
	if cfg.ControlTokenEnv != "" {
		token = getenv(cfg.ControlTokenEnv)
		if strings.TrimSpace(token) == "" {
			return nil, usagef("--control-token-env %s: the variable %s is unset or empty: export %s=<a long random token> (for example from `openssl rand -hex 32`) before starting the twin",
				cfg.ControlTokenEnv, cfg.ControlTokenEnv, cfg.ControlTokenEnv)
		}
		if strings.TrimSpace(token) != token {
			return nil, usagef("--control-token-env %s: the token starts or ends with white space, which no Authorization header can carry: remove it", cfg.ControlTokenEnv)
		}
	}
	if !loopback && token == "" {
		host := cfg.Host
		if host == "" {
			host = "every interface"
		}
		return nil, usagef("--host %s is not a loopback address, so anyone who can reach it could reset or delete sessions: set --control-token-env VAR (with the token in the environment variable VAR), or bind --host 127.0.0.1", host)
	}
	return newGuard(loopback, token), nil
}
