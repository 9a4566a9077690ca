package wraithtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// What an agent did and the world it left, per session: the wrappers of
// the control plane's GET digest, diff, journal and snapshot, POST fork
// and PUT snapshot (docs/evaluation.md). Each is an *Error with code
// session-not-found for an absent session, and none creates one.

// Digest returns the sha256: digest of session name's world: its entities
// in canonical form. Two sessions that hold the same world have the same
// digest, whatever requests brought them there, so a harness grades an
// agent by comparing its digest with a reference session's.
func (s *Server) Digest(name string) (string, error) {
	var out struct {
		Digest string `json:"digest"`
	}
	_, err := s.control(http.MethodGet, sessionPath(name, "digest"), nil, &out)
	return out.Digest, err
}

// JournalEntry is one business request of a session, as its journal
// keeps it.
type JournalEntry struct {
	// Index counts the session's requests from 0; a reset starts over.
	Index int64 `json:"index"`
	// At is the session clock's time of the request.
	At     time.Time `json:"at"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Route is the route that matched, such as GET /v1/customers/{id}.
	Route      string `json:"route"`
	Status     int    `json:"status"`
	Provenance string `json:"provenance"`
	// Exchange is the recorded exchange that answered (recording/index),
	// for provenance recorded; Fault the profile/rule, for provenance
	// fault.
	Exchange string `json:"exchange,omitempty"`
	Fault    string `json:"fault,omitempty"`
	// LatencyMS is the wall time the twin took to answer.
	LatencyMS float64 `json:"latency_ms"`
}

// Journal returns session name's journal, oldest first: its newest
// requests, up to the server's --journal-limit (1000 unless Flags says
// otherwise).
func (s *Server) Journal(name string) ([]JournalEntry, error) {
	var out struct {
		Entries []JournalEntry `json:"entries"`
	}
	_, err := s.control(http.MethodGet, sessionPath(name, "journal"), nil, &out)
	return out.Entries, err
}

// HAR returns session name's journal as a HAR 1.2 document, which browser
// developer tools and HAR libraries read.
func (s *Server) HAR(name string) ([]byte, error) {
	var out json.RawMessage
	_, err := s.control(http.MethodGet, sessionPath(name, "journal")+"?format=har", nil, &out)
	return out, err
}

// Diff is what a session changed since it was provisioned or last reset.
// Entities are the provider's JSON objects.
type Diff struct {
	Created []json.RawMessage `json:"created"`
	Updated []struct {
		ID     string          `json:"id"`
		Object string          `json:"object"`
		Before json.RawMessage `json:"before"`
		After  json.RawMessage `json:"after"`
	} `json:"updated"`
	Deleted []struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	} `json:"deleted"`
}

// Diff returns what session name changed since it was provisioned or
// last reset: where a digest says two worlds differ, the diff says how.
func (s *Server) Diff(name string) (Diff, error) {
	var d Diff
	_, err := s.control(http.MethodGet, sessionPath(name, "diff"), nil, &d)
	return d, err
}

// Fork copies session from into a new session to: entities, id generator,
// clock, idempotency cache, fault and rate state (its journal starts
// empty). From then on the two are independent, and the same request to
// each gets the same bytes. It returns the number of entities to holds; an
// existing to is an *Error with code session-exists.
func (s *Server) Fork(from, to string) (int, error) {
	var out struct {
		Entities int `json:"entities"`
	}
	_, err := s.control(http.MethodPost, sessionPath(from, "fork"), map[string]string{"session": to}, &out)
	return out.Entities, err
}

// Snapshot returns session name as one versioned JSON document, which
// Restore turns back into a session, here or in another server of the
// same twin.
func (s *Server) Snapshot(name string) ([]byte, error) {
	var out json.RawMessage
	_, err := s.control(http.MethodGet, sessionPath(name, "snapshot"), nil, &out)
	return out, err
}

// Restore creates session name from a Snapshot document and returns its
// digest, the snapshotted session's. An existing session is an *Error with
// code session-exists; a snapshot of another twin, snapshot-twin-mismatch.
func (s *Server) Restore(name string, snapshot []byte) (string, error) {
	var out struct {
		Digest string `json:"digest"`
	}
	_, err := s.control(http.MethodPut, sessionPath(name, "snapshot"), json.RawMessage(snapshot), &out)
	return out.Digest, err
}

// sessionPath is the control path of one of a session's endpoints.
func sessionPath(name, endpoint string) string {
	return "/__wraith/session/" + url.PathEscape(name) + "/" + endpoint
}
