package server

import (
	"net/http"
	"path"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/control"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/ui"
)

// guard decides who may call the control plane (SPEC §4 "Auth").
//
// On a loopback bind it refuses control calls that a browser could make on
// a web page's behalf, with the checks of package hostguard that the
// recorder shares: a Host that is not a loopback name or address (DNS
// rebinding), an Origin or Referer that is not a loopback origin, and
// Sec-Fetch-Site: cross-site when the browser hid the origin. Pages served
// from a loopback origin may call it (hostguard.LoopbackOrigins). With a
// token, every control call but health, ready, info and the session
// viewer's static files (package ui) must carry
// "Authorization: Bearer <token>".
//
// Application routes are not guarded: they serve agents, often through
// proxies and custom host names, and the SPEC leaves them open.
type guard struct {
	// loopback is true when the listener is bound to loopback addresses
	// only; it turns on the Host and Origin checks.
	loopback bool
	// token is the bearer token; the zero Token when there is none.
	token hostguard.Token
}

func newGuard(loopback bool, token string) *guard {
	return &guard{loopback: loopback, token: hostguard.NewToken(token)}
}

// bearerChallenge is the WWW-Authenticate value of a 401 (RFC 6750 §3).
const bearerChallenge = `Bearer realm="wraith-control"`

// allow reports whether the control request r may proceed, answering it
// with the error shape when it may not.
func (g *guard) allow(w http.ResponseWriter, r *http.Request) bool {
	if p := r.URL.Path; path.Clean(p) != p {
		// ServeMux would answer a redirect to the clean path; a control
		// call with dot segments or doubled slashes is a mistake or a probe.
		apierr.Write(w, apierr.Errorf(apierr.InvalidPath,
			"control path %q has . or .. segments, a doubled slash or a trailing slash: use the paths listed in the ready JSON", p))
		return false
	}
	if control.Exempt(r.URL.Path) {
		return true
	}
	if g.loopback {
		if no := hostguard.Check(r, hostguard.LoopbackOrigins); no != nil {
			if no.Reason == hostguard.ForeignHost {
				apierr.Write(w, apierr.Errorf(apierr.ControlForbiddenHost,
					"control calls to a loopback-bound twin must name it by a loopback Host (localhost, 127.0.0.1, [::1]), not %q: this blocks DNS-rebinding attacks from web pages", no.Value))
				return false
			}
			apierr.Write(w, apierr.Errorf(apierr.ControlForbiddenOrigin,
				"control calls from another web site (%s: %q) are refused: only pages served from localhost may call a loopback-bound twin's control plane", no.Header, no.Value))
			return false
		}
	}
	// The viewer's files hold no data, and a browser navigating to the
	// page cannot send a token: they need none, and the page asks for it.
	if g.token.Set() && !ui.Public(r.URL.Path) && !g.authorized(r) {
		challenge := bearerChallenge
		if len(r.Header.Values("Authorization")) > 0 {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		apierr.Write(w, apierr.New(apierr.ControlUnauthorized,
			"this control endpoint needs \"Authorization: Bearer <token>\" with the token from the variable named by --control-token-env"))
		return false
	}
	return true
}

// authorized reports whether r carries exactly one Authorization header
// with the right bearer token.
func (g *guard) authorized(r *http.Request) bool {
	token, err := hostguard.Bearer(r.Header)
	return err == nil && g.token.Matches(token)
}

// resolver looks up a host name's addresses.
type resolver = hostguard.Resolver

var defaultResolver resolver = hostguard.SystemResolver

// loopbackBind reports whether binding host listens on loopback only (see
// hostguard.LoopbackBind); a name that does not resolve is a usage error.
func loopbackBind(host string, lookup resolver) (bool, error) {
	ok, err := hostguard.LoopbackBind(host, lookup)
	if err != nil {
		return false, usagef("--host %q: %v", host, err)
	}
	return ok, nil
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
		if token, err = hostguard.TokenFromEnv("--control-token-env", cfg.ControlTokenEnv, getenv); err != nil {
			return nil, &UsageError{err}
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
