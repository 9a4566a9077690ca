package control

import "net/http"

// coverage and metrics serve what the observer counted (SPEC §9); their
// routes are registered only when there is an observer.
func (h *Handler) coverage(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, h.opts.Observer.Coverage())
}

func (h *Handler) metrics(w http.ResponseWriter, r *http.Request) error {
	h.opts.Observer.Metrics().ServeHTTP(w, r)
	return nil
}
