package control

import (
	"encoding/json"
	"net/http"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

func (h *Handler) digest(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
	}
	var d string
	var n int
	s.Do(func(st *session.State) { d, n = st.Digest() })
	return writeJSON(w, http.StatusOK, map[string]any{"session": s.Name(), "digest": d, "entities": n})
}

// entityJSON is an entity as digest, diff and snapshot show it: its body.
func entityJSON(e *world.Entity) json.RawMessage { return json.RawMessage(e.Body()) }

type updateView struct {
	ID     string          `json:"id"`
	Object string          `json:"object"`
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
}

type deletedView struct {
	ID     string `json:"id"`
	Object string `json:"object"`
}

func (h *Handler) diff(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
	}
	out := struct {
		Session string            `json:"session"`
		Created []json.RawMessage `json:"created"`
		Updated []updateView      `json:"updated"`
		Deleted []deletedView     `json:"deleted"`
	}{Session: s.Name(), Created: []json.RawMessage{}, Updated: []updateView{}, Deleted: []deletedView{}}
	s.Do(func(st *session.State) {
		created, updated, deleted := st.Diff()
		for _, e := range created {
			out.Created = append(out.Created, entityJSON(e))
		}
		for _, u := range updated {
			out.Updated = append(out.Updated, updateView{ID: u.After.ID, Object: u.After.Resource, Before: entityJSON(u.Before), After: entityJSON(u.After)})
		}
		for _, e := range deleted {
			out.Deleted = append(out.Deleted, deletedView{ID: e.ID, Object: e.Resource})
		}
	})
	return writeJSON(w, http.StatusOK, out)
}

func (h *Handler) fork(w http.ResponseWriter, r *http.Request) error {
	src, err := h.lookup(r)
	if err != nil {
		return err
	}
	var body struct {
		Session string `json:"session"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if err := session.ValidateName(body.Session); err != nil {
		return apierr.New(apierr.InvalidSession, `the body's "session" names the new session: `+err.Error())
	}
	f, err := h.eng.Store().Fork(r.Context(), src, body.Session)
	if err != nil {
		return err
	}
	n := f.Entities()
	h.log.Info("session forked", "session", body.Session, "from", src.Name(), "entities", n)
	return writeJSON(w, http.StatusCreated, map[string]any{"session": body.Session, "from": src.Name(), "entities": n})
}

func (h *Handler) snapshot(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
	}
	// A document holds the session's every entity as JSON, twice over
	// while it is encoded: taken one at a time, a process's snapshots
	// cost one session's worth, not one per caller (eight concurrent
	// snapshots of forks of a 100 MB session ran a twin out of memory).
	select {
	case h.snapshots <- struct{}{}:
		defer func() { <-h.snapshots }()
	case <-r.Context().Done():
		return apierr.New(apierr.RequestCanceled, "the request ended while another snapshot was being written (snapshots are taken one at a time): "+r.Context().Err().Error())
	}
	in := h.eng.Info()
	doc, err := session.SnapshotOf(s, in.Twin, in.Digest)
	if err != nil {
		return apierr.New(apierr.Internal, err.Error())
	}
	return writeJSON(w, http.StatusOK, doc)
}

// MaxSnapshot bounds a PUT snapshot body, the one control body that may
// pass MaxBody: a session's snapshot is as large as its entities. The
// server's --max-body (10 MiB by default) bounds every request first, so
// this cap applies only when --max-body is set above it; `wraith fleet`
// reads an answer of up to the same size.
const MaxSnapshot = 1 << 30

func (h *Handler) restore(w http.ResponseWriter, r *http.Request) error {
	name, err := sessionName(r)
	if err != nil {
		return err
	}
	var doc session.Snapshot
	if err := decodeMax(w, r, &doc, MaxSnapshot); err != nil {
		return err
	}
	in := h.eng.Info()
	set, problem := doc.Check(in.Twin, in.Digest)
	if problem != nil {
		return problem
	}
	s, err := h.eng.Restore(name, set, &doc.StateDoc)
	if err != nil {
		if p := known(err); p != nil {
			return p
		}
		// What no code names is the snapshot's fault: its state did
		// not restore.
		return apierr.New(apierr.InvalidSnapshot, "the snapshot cannot be restored: "+err.Error())
	}
	var d string
	var n int
	s.Do(func(st *session.State) { d, n = st.Digest() })
	h.log.Info("session restored", "session", name, "entities", n)
	return writeJSON(w, http.StatusCreated, map[string]any{"session": name, "digest": d, "entities": n})
}
