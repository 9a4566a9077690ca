package control

import "net/http"

// observe registers the endpoints that show what agents did (SPEC §9):
// journal and HAR, digest, diff, fork, snapshot, coverage and metrics.
func (h *Handler) observe() {
	h.mux.HandleFunc("GET /__wraith/session/{session}/journal", h.journal)
	h.mux.HandleFunc("GET /__wraith/session/{session}/digest", h.digest)
	h.mux.HandleFunc("GET /__wraith/session/{session}/diff", h.diff)
	h.mux.HandleFunc("POST /__wraith/session/{session}/fork", h.fork)
	h.mux.HandleFunc("GET /__wraith/session/{session}/snapshot", h.snapshot)
	h.mux.HandleFunc("PUT /__wraith/session/{session}/snapshot", h.restore)
	if o := h.opts.Observer; o != nil {
		h.mux.HandleFunc("GET /__wraith/coverage", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, o.Coverage())
		})
		h.mux.Handle("GET /__wraith/metrics", o.Metrics())
	}
}
