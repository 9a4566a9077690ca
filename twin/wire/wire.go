// Package wire names the parts of a twin's HTTP surface that packages on
// both sides of the engine need, so that each name is written once. It
// imports nothing: scrub, which session and engine import, reads the
// session header too, and only a package below all three can be its home.
//
// The contract's copy for clients that read no ready document,
// ipc.SessionHeader, cannot import this package (ipc is the standard
// library only, and nothing under twin/ imports ipc); a test of the serve
// entry point (internal/serve, TestSessionHeaderAgrees) holds it equal.
package wire

// SessionHeader is the request header that names a session, and the
// answer header that says which session served (SPEC §3, §5). The ready
// document publishes it as wraith_session_header.
const SessionHeader = "X-Wraith-Session"
