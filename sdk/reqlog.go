package main

import (
	"bufio"
	"encoding/json"
	"io"
	"time"
)

// request is one application request as a wraith's JSON log gives it:
// what its answer's X-Wraith-Session, X-Wraith-Route and
// X-Wraith-Provenance headers said, and when it was answered. Every
// request is a line at debug; a route miss is a line at info, sampled
// (the first of each path, then the 2nd, 4th, 8th...), so a miss the
// log holds back is known from the failure's text alone.
type request struct {
	At         time.Time `json:"-"`
	Session    string    `json:"session"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Route      string    `json:"route"`
	Status     int       `json:"status"`
	Provenance string    `json:"provenance"`
}

// miss reports whether the request matched no route of the twin.
func (r request) miss() bool { return r.Route == "" || r.Provenance == "miss" }

// write reports whether the request could change the session.
func (r request) write() bool { return r.Method != "GET" && r.Method != "HEAD" }

// readRequests reads the request and miss lines of a wraith log, in the
// order they were written; other lines are skipped.
func readRequests(r io.Reader) ([]request, error) {
	var out []request
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var line struct {
			Message   string `json:"@message"`
			Module    string `json:"@module"`
			Timestamp string `json:"@timestamp"`
			request
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Module != "wraith.request" {
			continue
		}
		if line.Message != "request" && line.Message != "miss" {
			continue
		}
		req := line.request
		req.At, _ = time.Parse(time.RFC3339Nano, line.Timestamp)
		if line.Message == "miss" {
			req.Provenance = "miss"
		}
		out = append(out, req)
	}
	return out, sc.Err()
}
