package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// sourceCase is one way a request names its session. The one table,
// sourceCases, runs directly against a twin (TestSessionSources) and
// through nginx with deploy/nginx/wraith-fleet.conf (TestNginxFleet), so
// that the session nginx hashes and the session the twin serves cannot
// drift apart.
type sourceCase struct {
	name    string
	method  string   // default GET
	path    string   // default /v1/customers/cus_123
	headers []string // X-Wraith-Session values, one header each
	auth    string   // Authorization
	want    string   // the session the twin serves, when it serves one
	wantErr string   // the error code it answers instead
}

func basicAuth(userPass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(userPass))
}

var sourceCases = []sourceCase{
	{name: "none", want: "default"},
	{name: "header", headers: []string{"src-header"}, want: "src-header"},
	{name: "header repeated", headers: []string{"src-repeat", "src-repeat"}, want: "src-repeat"},
	{name: "header twice, two names", headers: []string{"src-two-a", "src-two-b"}, wantErr: "invalid-session"},
	{name: "path prefix", path: "/__s/src-path/v1/customers/cus_123", want: "src-path"},
	{name: "path prefix and a query", path: "/__s/src-path-query?limit=1", want: "src-path-query"},
	{name: "path prefix percent-encoded", path: "/__s/src%2Dpct/v1/customers/cus_123", wantErr: "invalid-session"},
	{name: "path prefix dot-segment", path: "/__s/../v1/customers/cus_123", wantErr: "invalid-session"},
	{name: "path prefix, invalid name", path: "/__s/src~tilde/v1/customers/cus_123", wantErr: "invalid-session"},
	{name: "a doubled slash is no prefix", path: "//__s/src-double/v1/customers/cus_123", want: "default"},
	{name: "Bearer", auth: "Bearer sk_test_x.wraith.src-bearer", want: "src-bearer"},
	{name: "bearer, lower case", auth: "bearer sk_test_x.wraith.src-bearer-lc", want: "src-bearer-lc"},
	{name: "BEARER, upper case", auth: "BEARER sk_test_x.wraith.src-bearer-uc", want: "src-bearer-uc"},
	// checkout is a Stripe twin: its dialect does not read GitHub's token
	// scheme (a GitHub twin does), so these name their session in the
	// header too, which nginx hashes first. Alone, such a credential is
	// refused with 400 invalid-session (docs/fleet.md).
	{name: "token, GitHub's scheme, alone", auth: "token ghp_x.wraith.src-token-alone", wantErr: "invalid-session"},
	{name: "token, GitHub's scheme, with the header", headers: []string{"src-token"}, auth: "token ghp_x.wraith.src-token", want: "src-token"},
	{name: "token naming another session than the header", headers: []string{"src-token-mc"}, auth: "Token ghp_x.wraith.src-other", want: "src-token-mc"},
	{name: "two spaces after the scheme", auth: "Bearer  sk_test_x.wraith.src-two-spaces", want: "src-two-spaces"},
	// A credential that names a session in a form the dialect does not
	// read is refused, not served in the default session (nginx hashes it
	// to default's replica, which refuses it alike).
	{name: "a tab after the scheme", auth: "Bearer\tsk_test_x.wraith.src-tab", wantErr: "invalid-session"},
	{name: "two markers: the name after the first", auth: "Bearer sk_test_x.wraith.src-first.wraith.src-last", want: "src-first.wraith.src-last"},
	{name: "a marker in upper case", auth: "Bearer sk_test_x.WRAITH.src-marker-uc", want: "default"},
	{name: "another scheme", auth: "Digest sk_test_x.wraith.src-digest", wantErr: "invalid-session"},
	{name: "no marker", auth: "Bearer sk_test_123", want: "default"},
	{name: "Bearer, invalid name", auth: "Bearer sk_test_x.wraith.src/slash", wantErr: "invalid-session"},
	{name: "Bearer, name too long", auth: "Bearer sk_test_x.wraith." + strings.Repeat("n", 129), wantErr: "invalid-session"},
	{name: "Bearer, empty name", auth: "Bearer sk_test_x.wraith.", wantErr: "invalid-session"},
	{name: "Basic", auth: basicAuth("sk_test_x.wraith.src-basic:"), want: "src-basic"},
	{name: "basic, lower case, a password", auth: "basic " + base64.StdEncoding.EncodeToString([]byte("sk_test_x.wraith.src-basic-lc:pw")), want: "src-basic-lc"},
	{name: "Basic, two markers", auth: basicAuth("u.wraith.src-b1.wraith.src-b2:"), want: "src-b1.wraith.src-b2"},
	{name: "Basic without padding", auth: "Basic " + base64.RawStdEncoding.EncodeToString([]byte("u.wraith.src-unpadded:")), want: "src-unpadded"},
	{name: "Basic without a colon", auth: basicAuth("sk_test_x.wraith.src-no-colon"), want: "default"},
	{name: "Basic, invalid name", auth: basicAuth("sk_test_x.wraith.src/slash:"), wantErr: "invalid-session"},
	// A Basic user name ends at its first ':' (RFC 7617): a session named
	// there cannot hold one, and is refused rather than cut.
	{name: "Basic, a colon in the name", auth: basicAuth("sk_test_x.wraith.team:src-colon:"), wantErr: "invalid-session"},
	{name: "Basic, a colon in the name and a password", auth: basicAuth("sk_test_x.wraith.team:src-colon:pw"), wantErr: "invalid-session"},
	{name: "header, a colon in the name", headers: []string{"team:src-colon"}, want: "team:src-colon"},
	{name: "header and path agree", headers: []string{"src-agree"}, path: "/__s/src-agree/v1/customers/cus_123", want: "src-agree"},
	{name: "header and path disagree", headers: []string{"src-h"}, path: "/__s/src-p/v1/customers/cus_123", wantErr: "session-conflict"},
	{name: "path and credential disagree", path: "/__s/src-p2/v1/customers/cus_123", auth: "Bearer sk.wraith.src-c2", wantErr: "session-conflict"},
	{name: "header and credential agree", headers: []string{"src-hc"}, auth: "token ghp.wraith.src-hc", want: "src-hc"},
	// The control plane reads only its path: a header naming another
	// session does not move the call.
	{name: "control path with a header", method: http.MethodPost, path: "/__wraith/session/src-control", headers: []string{"src-elsewhere"}, want: "src-control"},
}

// sourceAnswer is what a twin (through base) made of c: the status, the
// error code or the session it served, and the session nginx says it
// routed by, if nginx was in the way.
type sourceAnswer struct {
	status         int
	code, served   string
	routed         string
	body           string
	controlRequest bool
}

func sendSourceCase(tb testing.TB, base string, c sourceCase) sourceAnswer {
	tb.Helper()
	method, path := c.method, c.path
	if method == "" {
		method = http.MethodGet
	}
	if path == "" {
		path = "/v1/customers/cus_123"
	}
	var body io.Reader
	control := strings.HasPrefix(path, "/__wraith/")
	if control {
		body = strings.NewReader(`{}`)
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		tb.Fatal(err)
	}
	for _, h := range c.headers {
		req.Header.Add("X-Wraith-Session", h)
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	if control {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := sourceAnswer{status: resp.StatusCode, served: resp.Header.Get("X-Wraith-Session"), routed: resp.Header.Get("X-Wraith-Routed-Session"), body: string(b), controlRequest: control}
	var doc struct {
		Session string `json:"session"`
		Error   struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(b, &doc)
	a.code = doc.Error.Code
	if control && resp.StatusCode/100 == 2 {
		a.served = doc.Session // the provisioning answer names the session
	}
	return a
}

// checkSourceCases runs every case through base; viaNginx also checks
// that nginx hashed the session the twin served.
func checkSourceCases(t *testing.T, base string, viaNginx bool) {
	for _, c := range sourceCases {
		t.Run(c.name, func(t *testing.T) {
			a := sendSourceCase(t, base, c)
			if c.wantErr != "" {
				if a.status != http.StatusBadRequest || a.code != c.wantErr {
					t.Fatalf("want 400 %s, have %d %s", c.wantErr, a.status, a.body)
				}
				return
			}
			if a.status == http.StatusBadRequest || a.served != c.want {
				t.Fatalf("want session %q served, have %q (%d %s)", c.want, a.served, a.status, a.body)
			}
			if viaNginx && a.routed != c.want {
				t.Errorf("the twin served session %q, but nginx hashed %q: the session's requests are split over replicas", c.want, a.routed)
			}
		})
	}
}

// TestSessionSources runs the table directly against a real twin; the
// fleet test runs it through nginx.
func TestSessionSources(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "checkout")
	checkSourceCases(t, srv.ready.Serve.URL, false)
}
