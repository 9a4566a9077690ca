package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	stripedialect "github.com/wraithdev/wraith/twin/dialect/stripe"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/hostguard"
)

// CompatStripeMock is --compat's one mode: answer as stripe-mock does, so
// that the official Stripe SDKs' test suites, and a project's own tests
// written against stripe-mock, run against the twin unchanged
// (docs/compat.md).
const CompatStripeMock = "stripe-mock"

// What the SDK suites probe stripe-mock for. stripe-go dials HTTPS with
// HTTP/2 on 12112 and stripe-python plain HTTP on 12111; both want a
// Stripe-Mock-Version header of at least 0.109.0.
const (
	stripeMockHTTPPort  = 12111
	stripeMockHTTPSPort = 12112
	// stripeMockVersion is the stripe-mock release whose description the
	// stripe twin is imported from (the [source] pin of
	// twin/openapi/overlays/stripe.toml; TestCompatVersionIsThePin keeps
	// the two equal).
	stripeMockVersion = "0.203.0"
	// sniffTimeout bounds the wait for a connection's first byte, which
	// says whether it speaks TLS: as ReadHeaderTimeout bounds the rest.
	sniffTimeout = 10 * time.Second
)

// checkCompat refuses a compat mode the twin cannot serve: stripe-mock
// speaks Stripe's dialect, so only a twin in that dialect can stand in
// for it.
func checkCompat(cfg Config, t *format.Twin) error {
	if cfg.Compat == "" {
		return nil
	}
	if d := t.Manifest.DialectName(); d != (stripedialect.Dialect{}).Name() {
		return usagef("--compat %s: twin %s speaks the %s dialect, and stripe-mock answers in Stripe's; serve a Stripe twin (stripe, checkout, billing) or drop --compat", cfg.Compat, t.Name(), d)
	}
	return nil
}

// compatFixture is the fixture set new sessions start with: --fixture,
// else, under stripe-mock's compat mode, the twin's baseline set (one
// object of each type), because stripe-mock answers every list with its
// fixture and the suites written for it read the first entry of a list
// they never filled. A fresh session of the plain twin lists nothing, as
// a new Stripe account does.
func compatFixture(cfg Config, t *format.Twin) string {
	if cfg.Fixture != "" || cfg.Compat != CompatStripeMock {
		return cfg.Fixture
	}
	if _, ok := t.Fixtures[baselineFixture]; ok {
		return baselineFixture
	}
	return ""
}

// baselineFixture is the fixture set an imported Stripe twin holds one
// object of each of its types in (fixtures/baseline.json).
const baselineFixture = "baseline"

// listenPort is the port of the server's first listener: --port, else
// the compat mode's own default.
func (c *Config) listenPort() int {
	if c.Compat == CompatStripeMock && !c.PortSet {
		return stripeMockHTTPPort
	}
	return c.Port
}

// compatListen turns the bound listener ln into the compat mode's: every
// listener answers both plain HTTP and TLS (with HTTP/2), told apart by
// the connection's first byte, so a client may point either scheme at
// either port; without --port a second listener is bound on stripe-mock's
// HTTPS port, as stripe-mock binds two. The certificate is self-signed
// and made now, as stripe-mock's own is self-signed: the SDK suites skip
// verification.
func compatListen(cfg Config, ln net.Listener, log hclog.Logger) (net.Listener, *tls.Config, error) {
	if cfg.Compat == "" {
		return ln, nil, nil
	}
	tc, err := compatTLS(cfg.Host)
	if err != nil {
		return nil, nil, err
	}
	lns := []net.Listener{ln}
	if !cfg.PortSet {
		second, err := net.Listen("tcp", hostguard.ListenAddr(cfg.Host, stripeMockHTTPSPort))
		if err != nil {
			if errors.Is(err, syscall.EADDRINUSE) {
				return nil, nil, fmt.Errorf("--compat %s: port %d on %s, stripe-mock's HTTPS port, is in use (a stripe-mock still running?): stop it, or pass --port N to serve HTTP and HTTPS on one port", cfg.Compat, stripeMockHTTPSPort, cfg.Host)
			}
			return nil, nil, fmt.Errorf("--compat %s: listen on stripe-mock's HTTPS port: %w", cfg.Compat, err)
		}
		lns = append(lns, second)
	}
	sl := newSniffListener(lns, tc)
	for _, a := range sl.Addrs() {
		log.Info("compat: HTTP and HTTPS (HTTP/2) on one port", "mode", cfg.Compat, "addr", a.String(), "stripe_mock_version", stripeMockVersion)
	}
	return sl, tc, nil
}

// compatTLS is the TLS configuration of the compat listeners: a fresh
// self-signed certificate for localhost and the loopback addresses (and
// --host when it is an address), offering HTTP/2 first, as stripe-go's
// suite insists on it.
func compatTLS(host string) (*tls.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("--compat: generate the TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("--compat: generate the certificate's serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "localhost", Organization: []string{"Wraith compat"}},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		// An hour back covers a client whose clock is a little behind.
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(365 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(hostguard.Unbracket(host)); ip != nil && !ip.IsLoopback() && !ip.IsUnspecified() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("--compat: make the self-signed certificate: %w", err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
		NextProtos:   []string{"h2", "http/1.1"},
		MinVersion:   tls.VersionTLS12,
	}, nil
}

// compatHandler adds what the compat mode answers beyond the twin: the
// Stripe-Mock-Version header on every answer, which the SDK suites check
// before they run, and stripe-mock's own answer at /, which is their
// probe. The probe is answered here, not by the twin, so that it is no
// route miss in the coverage and journal of the session it would land in.
func compatHandler(mode string, next http.Handler) http.Handler {
	if mode == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Stripe-Mock-Version", stripeMockVersion)
		if r.URL.Path == "/" {
			writeUnrecognized(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// writeUnrecognized answers a request for / as stripe-mock (and Stripe)
// answer a URL they have no route for: 404, an invalid_request_error
// naming the method and path.
func writeUnrecognized(w http.ResponseWriter, r *http.Request) {
	type stripeError struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	}
	body, _ := json.Marshal(struct {
		Error stripeError `json:"error"`
	}{stripeError{
		Message: fmt.Sprintf("Unrecognized request URL (%s: %s).", r.Method, r.URL.Path),
		Type:    "invalid_request_error",
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	w.Write(append(body, '\n'))
}
