package hostguard

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
	"time"
)

// Resolver looks up a host name's addresses.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// SystemResolver is the system's resolver.
func SystemResolver(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// LoopbackBind reports whether binding host listens on loopback only:
// 127.0.0.0/8, ::1 (bare or bracketed), "localhost", or a name all of
// whose addresses are loopback. An empty host binds every interface, so it
// is not loopback. A name that does not resolve is an error.
func LoopbackBind(host string, lookup Resolver) (bool, error) {
	h := Unbracket(host)
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
		return false, fmt.Errorf("cannot resolve it (%v): use an IP address such as 127.0.0.1", err)
	}
	for _, a := range addrs {
		if !a.IsLoopback() {
			return false, nil
		}
	}
	return len(addrs) > 0, nil
}

var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValidEnvName reports whether name can name an environment variable, so
// a token pasted where its variable's name belongs is caught (and never
// repeated in a message).
func ValidEnvName(name string) bool { return envNameRe.MatchString(name) }

// TokenFromEnv reads a bearer token from the variable name, for the flag
// that named it. The token never goes on a command line, where ps shows it.
// An unset or blank variable, or a token with surrounding white space
// (which no Authorization header can carry), is an error saying how to
// fix it.
func TokenFromEnv(flag, name string, getenv func(string) string) (string, error) {
	if !ValidEnvName(name) {
		return "", fmt.Errorf("%s: want the name of an environment variable (letters, digits, _), not the token itself", flag)
	}
	token := getenv(name)
	if strings.TrimSpace(token) == "" {
		return "", fmt.Errorf("%s %s: the variable %s is unset or empty: export %s=<a long random token> (for example from `openssl rand -hex 32`) before starting", flag, name, name, name)
	}
	if strings.TrimSpace(token) != token {
		return "", fmt.Errorf("%s %s: the token starts or ends with white space, which no Authorization header can carry: remove it", flag, name)
	}
	return token, nil
}

// Token is a bearer token, kept as its SHA-256: comparing fixed-size
// digests in constant time leaks neither the token's bytes nor its
// length. The zero Token is "no token".
type Token struct{ sum []byte }

// NewToken returns the Token for s; "" gives the zero Token.
func NewToken(s string) Token {
	if s == "" {
		return Token{}
	}
	sum := sha256.Sum256([]byte(s))
	return Token{sum[:]}
}

// Set reports whether t is a token rather than "no token".
func (t Token) Set() bool { return t.sum != nil }

// Matches reports, in constant time, whether s is the token. Nothing
// matches the zero Token.
func (t Token) Matches(s string) bool {
	if t.sum == nil {
		return false
	}
	sum := sha256.Sum256([]byte(s))
	return subtle.ConstantTimeCompare(sum[:], t.sum) == 1
}

// ErrNoBearer is returned by Bearer for a header that is not exactly one
// "Authorization: Bearer <token>".
var ErrNoBearer = errors.New(`want exactly one "Authorization: Bearer <token>" header`)

// Bearer returns the token of h's single "Authorization: Bearer <token>"
// header (the scheme is case-insensitive).
func Bearer(h http.Header) (string, error) {
	vals := h.Values("Authorization")
	if len(vals) != 1 {
		return "", ErrNoBearer
	}
	scheme, token, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", ErrNoBearer
	}
	return strings.TrimSpace(token), nil
}
