// Package control serves a twin's control plane, /__wraith/*: health,
// readiness, info, the session lifecycle (provision, list, reset, delete,
// inspect, clock), what a session did and holds (journal, digest, diff,
// fork, snapshot and restore), and the serve-wide coverage and metrics.
// Bodies are JSON in and out, and every error has one shape:
// {"error":{"code":"kebab-code","message":"...", ...details}}.
package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/observe"
	"github.com/wraithdev/wraith/twin/session"
)

// Prefix is the path prefix of every control endpoint.
const Prefix = "/__wraith/"

// MaxBody bounds a control request body.
const MaxBody = 1 << 20

// Options configure the control plane.
type Options struct {
	// Debug enables the session state endpoint.
	Debug bool
	// Version is the wraith version reported by info.
	Version string
	// Settings is reported by info as the serve-wide settings.
	Settings any
	Logger   hclog.Logger
	// Now is the wall clock, for views of real-clock sessions.
	Now func() time.Time
	// Observer serves coverage and metrics; nil leaves them out (404).
	Observer *observe.Observer
}

// Handler serves /__wraith/*.
type Handler struct {
	eng   *engine.Engine
	opts  Options
	log   hclog.Logger
	now   func() time.Time
	mux   *http.ServeMux
	ready atomic.Bool
	// snapshots holds a place for each snapshot document being built
	// and written: one at a time, since a document is the whole of a
	// session materialised (forks share their state, so many sessions
	// cost little until each is written out).
	snapshots chan struct{}
}

// New returns the control plane for eng. It answers ready only after
// SetReady(true).
func New(eng *engine.Engine, opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	h := &Handler{eng: eng, opts: opts, log: opts.Logger, now: opts.Now, mux: http.NewServeMux(), snapshots: make(chan struct{}, 1)}
	h.register()
	return h
}

// SetReady sets what /__wraith/ready answers: false before serving and
// while draining.
func (h *Handler) SetReady(ready bool) { h.ready.Store(ready) }

// ServeHTTP serves a control request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) health(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
}

func (h *Handler) readyz(w http.ResponseWriter, r *http.Request) error {
	if !h.ready.Load() {
		return apierr.New(apierr.NotReady, "the twin is starting or draining")
	}
	return writeJSON(w, http.StatusOK, map[string]any{"ready": true})
}

func (h *Handler) info(w http.ResponseWriter, r *http.Request) error {
	in := h.eng.Info()
	return writeJSON(w, http.StatusOK, map[string]any{
		"twin":           in.Twin,
		"provider":       in.Provider,
		"digest":         in.Digest,
		"recorded_at":    in.RecordedAt,
		"wraith_version": h.opts.Version,
		"settings":       h.opts.Settings,
		"routes":         in.Routes,
		"resources":      in.Resources,
		"fixtures":       in.Fixtures,
		"sessions":       h.eng.Store().Len(),
		"goroutines":     runtime.NumGoroutine(),
	})
}

func (h *Handler) unknown(w http.ResponseWriter, r *http.Request) error {
	if allow := h.allowed(r); len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		return apierr.Errorf(apierr.MethodNotAllowed,
			"%s %s: this control endpoint takes %s", r.Method, r.URL.Path, strings.Join(allow, " or ")).With("allow", allow)
	}
	return apierr.Errorf(apierr.ControlNotFound,
		"no control endpoint %s %s; see the control paths in the ready JSON", r.Method, r.URL.Path)
}

// allowed returns the methods some endpoint serves r's path with.
func (h *Handler) allowed(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		probe := r.WithContext(r.Context())
		probe.Method = m
		if _, pattern := h.mux.Handler(probe); pattern != Prefix {
			out = append(out, m)
		}
	}
	return out
}

// writeJSON writes v with status; when v does not encode nothing is
// written and the error is returned for the caller to answer.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return apierr.New(apierr.Internal, err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
	return nil
}

// decode reads a JSON body strictly into v: unknown fields, wrong types
// and trailing data are 400 invalid-json, with a message naming the field
// at fault. An empty body leaves v as it is.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	return decodeMax(w, r, v, MaxBody)
}

// decodeMax is decode for bodies of up to max bytes.
func decodeMax(w http.ResponseWriter, r *http.Request, v any, max int64) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return apierr.Errorf(apierr.BodyTooLarge, "this control body is limited to %d bytes", max)
		}
		return apierr.New(apierr.BodyUnreadable, err.Error())
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		msg, details := jsonProblem(err, v)
		return &apierr.Error{Code: apierr.InvalidJSON, Message: msg, Details: details}
	}
	if len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		return apierr.New(apierr.InvalidJSON, "the body has data after its JSON object: send one object")
	}
	return nil
}

// sessionName validates the {session} path value.
func sessionName(r *http.Request) (string, error) {
	name := r.PathValue("session")
	if err := session.ValidateName(name); err != nil {
		return "", apierr.New(apierr.InvalidSession, err.Error())
	}
	return name, nil
}
