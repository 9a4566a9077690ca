// Package egress routes a program's outbound HTTP and HTTPS traffic to
// twins, and refuses everything else: the sandbox behind wraith run and
// wraith proxy (SPEC §15).
//
// A [Table] maps provider hosts (api.stripe.com, api.github.com,
// github.com) to the URL of the twin that stands in for each. A [Router]
// forwards a request for a mapped host to its twin, in the sandbox's
// session (the X-Wraith-Session header, set by the router and never taken
// from the program), so the twin's journal holds it and its answer carries
// the twin's provenance headers. TLS to a mapped host is terminated with a
// certificate minted for that host by a local [CA] the program is told to
// trust.
//
// Two front doors share the router:
//
//   - [Proxy], a forward proxy (CONNECT and absolute-form HTTP) for
//     programs that honour HTTPS_PROXY. The session is the user name of its
//     Proxy-Authorization. An unmapped host gets 403 egress-refused and
//     nothing is dialled, unless it is a passthrough host.
//   - [Router.ServeTLS] and [Router.ServeHTTP] on listeners inside a
//     network namespace (package netns), where the program's provider
//     hosts resolve to the sandbox's own 127.0.0.1:443 and :80. There an
//     unmapped name fails at the connection: the TLS handshake is refused,
//     or the plain connection closed, never an HTTP answer a client could
//     take for success.
//
// Every refusal is one line in the [Misses] log.
package egress
