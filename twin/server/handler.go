package server

import (
	"net/http"
	"strings"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/control"
	"github.com/wraithdev/wraith/twin/ui"
)

// handler routes control requests through the guard to the control plane
// and everything else to the engine, bounding bodies.
func (s *Server) handler() http.Handler {
	max := s.cfg.MaxBody
	page := ui.New(s.deps.Now())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			fail := apierr.Errorf(apierr.BodyTooLarge, "request body is %d bytes; the limit is %d (--max-body)", r.ContentLength, max)
			if strings.HasPrefix(r.URL.Path, control.Prefix) {
				apierr.Write(w, fail)
			} else {
				s.eng.Refuse(w, r, fail) // counted by coverage and metrics
			}
			return
		}
		// A declared length is already what net/http reads at most, and
		// it was checked above; only a chunked body needs a limit here.
		if r.ContentLength < 0 {
			r.Body = http.MaxBytesReader(w, r.Body, max)
		}
		if strings.HasPrefix(r.URL.Path, control.Prefix) {
			switch {
			case !s.guard.allow(w, r):
			case ui.Owns(r.URL.Path):
				page.ServeHTTP(w, r)
			default:
				s.ctl.ServeHTTP(w, r)
			}
			return
		}
		if r.Method == http.MethodHead {
			r = asGet(r)
		}
		s.eng.ServeHTTP(w, r)
	})
}
