package engine

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/wire"
)

// SessionHeader is the request header that names a session, and the
// answer header that says which session served. Its home is package wire,
// below scrub, which needs it too; the engine's name for it stays, as the
// ready document (server.Info) and the serve entry point's
// TestSessionHeaderAgrees read it from here.
const SessionHeader = wire.SessionHeader

// Where a request's session may come from (SPEC §10), in the order the
// ready document lists them.
const (
	SourceHeader     = "header"
	SourcePath       = "path"
	SourceCredential = "credential"
)

// SessionSources lists the places a session name is read from.
var SessionSources = []string{SourceHeader, SourcePath, SourceCredential}

// PathPrefix starts a path that names its session: /__s/{session}/v1/...
// serves /v1/... in {session}, for SDKs whose base URL may carry a path.
const PathPrefix = "/__s/"

// credentialMarker separates a credential from the session it names:
// sk_test_123.wraith.agent-17, for SDKs that only let you set a key.
const credentialMarker = ".wraith."

// sessionOf returns the request's session name and the provider path it
// asks for. Every source present must name the same session: a header and
// a path prefix that disagree are a mistake in the client's setup, and
// picking one would put the agent's requests in a world it did not mean.
func (e *Engine) sessionOf(r *http.Request) (name, path string, fail *apierr.Error) {
	path = r.URL.Path
	var from string
	take := func(src, v string) bool {
		if err := session.ValidateName(v); err != nil {
			fail = apierr.New(apierr.InvalidSession, err.Error()+" (from the "+src+"): a session name is 1 to 128 characters of A-Z a-z 0-9 . _ : -, other than . and ..")
			return false
		}
		if name != "" && v != name {
			fail = apierr.New(apierr.SessionConflict, "the "+from+" names session "+strconv.Quote(name)+" but the "+src+" names "+strconv.Quote(v)+": name one session, or the same one in both")
			return false
		}
		name, from = v, src
		return true
	}
	if v := r.Header[SessionHeader]; len(v) > 0 {
		for _, other := range v[1:] {
			// Repeats of the same name are what some proxies produce and
			// are harmless; two names would leave the session to chance.
			if other != v[0] {
				return "", "", apierr.New(apierr.InvalidSession, "the request names two sessions, "+strconv.Quote(v[0])+" and "+strconv.Quote(other)+", in "+SessionHeader+" headers: send one")
			}
		}
		if !take(SessionHeader+" header", v[0]) {
			return "", "", fail
		}
	}
	if esc := r.URL.EscapedPath(); strings.HasPrefix(esc, PathPrefix) {
		seg, rest := pathSession(esc)
		const src = "path prefix " + PathPrefix + "{session}/"
		switch {
		case strings.IndexByte(seg, '%') >= 0:
			return "", "", apierr.New(apierr.InvalidSession, "the "+src+" holds "+strconv.Quote(seg)+", which is percent-encoded: send the session name as it is, 1 to 128 characters of A-Z a-z 0-9 . _ : - (an encoded / or any other character is refused)")
		case seg == "." || seg == "..":
			return "", "", apierr.New(apierr.InvalidSession, "the "+src+" holds "+strconv.Quote(seg)+", a dot-segment that clients and proxies remove from paths: name the session otherwise")
		}
		if !take(src, seg) {
			return "", "", fail
		}
		path = rest
	}
	if v := r.Header["Authorization"]; len(v) > 0 {
		s, ok, colon := e.credentialSession(v[0])
		if !ok && name == "" && strings.Contains(v[0], credentialMarker) {
			// A suffix in a scheme the provider does not take, and no
			// other source, would be served in the default session,
			// silently.
			scheme, _, _ := strings.Cut(v[0], " ")
			return "", "", apierr.New(apierr.InvalidSession, "the Authorization header names a session after "+credentialMarker+" in a scheme, "+strconv.Quote(scheme)+", that this twin's provider does not take, so it would not be read: send it as a Bearer token or the Basic user name, or name the session in the "+SessionHeader+" header or the "+PathPrefix+"{session}/ path prefix")
		}
		if colon {
			return "", "", apierr.New(apierr.InvalidSession, "the Basic credential names a session after "+credentialMarker+" and more than one ':' follows: a Basic user name ends at its first ':' (RFC 7617), so a session named there cannot hold one, and the twin will not guess where the name ends; "+
				"name a session without ':' in the credential, or name it in the "+SessionHeader+" header or the "+PathPrefix+"{session}/ path prefix (a password holding ':' beside such a user name is refused too: the two cannot be told apart)")
		}
		if ok && !take("credential's "+credentialMarker+"{session} suffix", s) {
			return "", "", fail
		}
	}
	if name == "" {
		name = session.DefaultName
	}
	return name, path, nil
}

// pathSession splits an escaped path that starts with PathPrefix into the
// session segment, as sent, and the provider path after it, decoded. The
// segment is read from the escaped path: decoded first, /__s/a%2Fb/v1
// would name session a and ask for /b/v1. A prefix with nothing after it
// asks for the provider's root, "/".
func pathSession(esc string) (seg, path string) {
	rest := esc[len(PathPrefix):]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return rest, "/"
	}
	path, err := url.PathUnescape(rest[i:])
	if err != nil { // EscapedPath gives valid escapes; keep them if not
		path = rest[i:]
	}
	return rest[:i], path
}

// credentialSession returns the session a credential names with its
// .wraith.{session} suffix: a token in one of the dialect's schemes, or a
// Basic-auth user name. colon reports a Basic user name naming a session
// with more than one ':' in the credential: a session name may hold ':', a
// Basic user name cannot, so sk.wraith.team:agent-1 plus the ':' every
// client adds would silently be session "team", shared by every agent of
// the team.
func (e *Engine) credentialSession(auth string) (name string, ok, colon bool) {
	c, ok := e.dialect.Credential(auth)
	if !ok {
		return "", false, false
	}
	cred := c.Token
	if c.Basic {
		cred = c.User
		colon = strings.Contains(cred, credentialMarker) && strings.IndexByte(c.Password, ':') >= 0
		if !strings.Contains(cred, credentialMarker) {
			// git sends a token as the password (https://x:TOKEN@host):
			// the suffix is read there, where a ':' is the password's own.
			cred = c.Password
		}
	}
	i := strings.Index(cred, credentialMarker)
	if i < 0 {
		return "", false, false
	}
	return strings.TrimSpace(cred[i+len(credentialMarker):]), true, colon
}

// ErrNotProvisioned is Session's error, under
// Options.RequireProvisioned, for a session that does not exist.
var ErrNotProvisioned = errors.New("session not provisioned")

// Session returns the session named name, creating it with the serve-wide
// settings on first use, or, under Options.RequireProvisioned, refusing
// with ErrNotProvisioned.
func (e *Engine) Session(name string) (*session.Session, error) {
	if e.opts.RequireProvisioned {
		if s := e.store.Get(name); s != nil {
			return s, nil
		}
		return nil, fmt.Errorf("%w: session %q does not exist on this twin, which serves only provisioned sessions (--require-provisioned): provision it first (POST /__wraith/session/%s), or check the session the client names; behind a proxy, a replica that restarted without its state folder has lost its sessions", ErrNotProvisioned, name, name)
	}
	s, _, err := e.store.GetOrCreate(name, func() *session.Session {
		return session.New(name, e.defaults, e.twin.World(e.defaults.Fixture), false)
	})
	return s, err
}
