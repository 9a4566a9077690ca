package control

import (
	"net/http"
	"strings"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/ui"
)

// Route is one control endpoint. The table of them (Routes) is the one
// place a control path is written: the mux is built from it, the server's
// guard asks it which paths are open (Exempt), and the ready document's
// paths are derived from it (ReadyPaths).
type Route struct {
	Method string
	// Path is the ServeMux path pattern; {session} stands for a session
	// name.
	Path string
	// Ready is the key the ready document lists Path under; routes of one
	// path share it.
	Ready string
	// Open routes are the probes a supervisor and a load balancer call:
	// they need no token and skip the Host and Origin checks, and answer
	// nothing a caller could misuse.
	Open bool
	// Debug routes answer debug-disabled unless the twin serves with
	// --debug: they show a session's entities whole.
	Debug bool
	// Observed routes exist only when the control plane has an observer
	// (Options.Observer); without one their paths answer 404.
	Observed bool

	// serve answers the request; an error it returns is put on the wire
	// by writeError. Nil for a path another handler serves in front of
	// the control plane (the viewer, package ui).
	serve func(h *Handler, w http.ResponseWriter, r *http.Request) error
}

// table is the control plane's routes, in the order the docs list them.
// A function rather than a package variable: the table holds method
// values, and a caller's copy cannot change the mux's.
func table() []Route {
	return []Route{
		{Method: http.MethodGet, Path: Prefix + "health", Ready: "health", Open: true, serve: (*Handler).health},
		{Method: http.MethodGet, Path: Prefix + "ready", Ready: "ready", Open: true, serve: (*Handler).readyz},
		{Method: http.MethodGet, Path: Prefix + "info", Ready: "info", Open: true, serve: (*Handler).info},
		{Method: http.MethodGet, Path: Prefix + "session", Ready: "sessions", serve: (*Handler).listSessions},
		{Method: http.MethodPost, Path: Prefix + "session", Ready: "sessions", serve: (*Handler).provision},
		{Method: http.MethodPost, Path: Prefix + "session/{session}", Ready: "session", serve: (*Handler).provision},
		{Method: http.MethodDelete, Path: Prefix + "session/{session}", Ready: "session", serve: (*Handler).deleteSession},
		{Method: http.MethodPost, Path: Prefix + "session/{session}/reset", Ready: "session_reset", serve: (*Handler).resetSession},
		{Method: http.MethodGet, Path: Prefix + "session/{session}/state", Ready: "session_state", Debug: true, serve: (*Handler).state},
		{Method: http.MethodPost, Path: Prefix + "session/{session}/clock", Ready: "session_clock", serve: (*Handler).clock},
		{Method: http.MethodPost, Path: Prefix + "reset", Ready: "reset", serve: (*Handler).resetAll},
		{Method: http.MethodGet, Path: ui.Path, Ready: "ui"}, // served by package ui, through the guard

		// What agents did (SPEC §9).
		{Method: http.MethodGet, Path: Prefix + "session/{session}/journal", Ready: "session_journal", serve: (*Handler).journal},
		{Method: http.MethodGet, Path: Prefix + "session/{session}/digest", Ready: "session_digest", serve: (*Handler).digest},
		{Method: http.MethodGet, Path: Prefix + "session/{session}/diff", Ready: "session_diff", serve: (*Handler).diff},
		{Method: http.MethodPost, Path: Prefix + "session/{session}/fork", Ready: "session_fork", serve: (*Handler).fork},
		{Method: http.MethodGet, Path: Prefix + "session/{session}/snapshot", Ready: "session_snapshot", serve: (*Handler).snapshot},
		{Method: http.MethodPut, Path: Prefix + "session/{session}/snapshot", Ready: "session_snapshot", serve: (*Handler).restore},
		{Method: http.MethodGet, Path: Prefix + "coverage", Ready: "coverage", Observed: true, serve: (*Handler).coverage},
		{Method: http.MethodGet, Path: Prefix + "metrics", Ready: "metrics", Observed: true, serve: (*Handler).metrics},
	}
}

// Routes returns the control plane's routes.
func Routes() []Route { return table() }

// ReadyPaths returns the path of every ready-document key: what the ready
// document's control object lists ("session_reset":
// "/__wraith/session/{session}/reset").
func ReadyPaths() map[string]string {
	rts := table()
	out := make(map[string]string, len(rts))
	for _, rt := range rts {
		out[rt.Ready] = rt.Path
	}
	return out
}

// Exempt reports whether a control path is served without authentication
// and without the Host and Origin checks.
func Exempt(path string) bool {
	for _, rt := range table() {
		if rt.Open && rt.Path == path {
			return true
		}
	}
	return false
}

// register puts the table on h's mux, leaving out the routes h cannot
// serve (another handler's, and observed ones without an observer).
func (h *Handler) register() {
	rts := table()
	for i := range rts {
		rt := &rts[i]
		if rt.serve == nil || rt.Observed && h.opts.Observer == nil {
			continue
		}
		h.mux.HandleFunc(rt.Method+" "+rt.Path, h.handle(rt))
	}
	h.mux.HandleFunc(Prefix, h.handle(&Route{serve: (*Handler).unknown}))
}

// handle adapts a route's serve to net/http: the one place a returned
// error reaches the wire.
func (h *Handler) handle(rt *Route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if rt.Debug && !h.opts.Debug {
			// Ready names the endpoint in words: "session_state" is the
			// session state endpoint.
			writeError(w, apierr.Errorf(apierr.DebugDisabled, "the %s endpoint needs wraith serve --debug", strings.ReplaceAll(rt.Ready, "_", " ")))
			return
		}
		if err := rt.serve(h, w, r); err != nil {
			writeError(w, err)
		}
	}
}
