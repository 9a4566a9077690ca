package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/prov"
	"github.com/wraithdev/wraith/twin/session"
)

// drainLimit is how much of an endpoint's answer is read past what the
// journal keeps, so that its connection can be used again; a longer
// answer's connection is closed instead.
const drainLimit = 64 << 10

// outcome is what one attempt came to.
type outcome struct {
	status  int
	header  http.Header
	body    []byte
	err     string
	final   bool // no later attempt can do better (refused, malformed)
	elapsed time.Duration
}

// attempt posts j once, journals it and reports whether it is to be
// tried again on the session's clock.
func (d *Deliverer) attempt(sess *session.Session, j *job) (retry bool) {
	j.attempt++
	if j.attempt > 1 && !d.holds(sess, j.d.Event) {
		// The session was reset, or restored from a snapshot, without the
		// event: what it retried is gone.
		d.journal(sess, j, j.d.Header, outcome{err: "dropped: the session no longer holds " + j.d.Event + " (reset or restored since)", final: true}, d.o.Now(), false)
		return false
	}
	h := http.Header{}
	for k, v := range j.d.Header {
		h[k] = append([]string(nil), v...)
	}
	wall := d.o.Now()
	if d.o.Signer != nil {
		d.o.Signer.Sign(h, j.d.Secret, j.d.Body, wall.Unix())
	}
	out := d.post(j.d.URL, h, j.d.Body)
	ok := out.status >= 200 && out.status <= 299
	if !ok && out.err == "" {
		out.err = fmt.Sprintf("the endpoint answered %d, not a 2xx", out.status)
	}
	again := !ok && !out.final && j.attempt <= len(d.o.Retries)
	d.journal(sess, j, h, out, wall, again)
	if !ok {
		d.o.Logger.Debug("delivery failed", "session", sess.Name(), "event", j.d.Event, "url", j.d.URL, "attempt", j.attempt, "error", out.err)
	}
	return again
}

// post makes one attempt's request.
func (d *Deliverer) post(raw string, h http.Header, body []byte) outcome {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return outcome{err: fmt.Sprintf("refused: %q is no http or https URL: update the endpoint's url", raw), final: true}
	}
	ctx, cancel := context.WithTimeout(d.ctx, d.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return outcome{err: "refused: " + err.Error(), final: true}
	}
	req.Header = h
	req.ContentLength = int64(len(body))
	start := time.Now()
	resp, err := d.client.Do(req)
	if err != nil {
		out := outcome{elapsed: time.Since(start)}
		var r *refusal
		switch {
		case errors.As(err, &r):
			out.err, out.final = r.Error(), true
		case errors.Is(err, context.DeadlineExceeded):
			out.err = fmt.Sprintf("timed out after %s", d.o.Timeout)
		case d.ctx.Err() != nil:
			out.err, out.final = "cancelled: the twin is shutting down", true
		default:
			out.err = "unreachable: " + unwrapURL(err).Error()
		}
		return out
	}
	defer resp.Body.Close()
	kept, _ := io.ReadAll(io.LimitReader(resp.Body, session.BodyExcerpt))
	io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	return outcome{status: resp.StatusCode, header: resp.Header, body: kept, elapsed: time.Since(start)}
}

// unwrapURL drops url.Error's "Post \"…\": " prefix: the journal names
// the URL already.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// holds reports whether sess still holds the event named id.
func (d *Deliverer) holds(sess *session.Session, id string) bool {
	held := false
	err := sess.ReadContext(d.ctx, func(st session.Reader) {
		e := st.Get(id)
		held = e != nil && !e.Deleted
	})
	return err == nil && held
}

// journal journals an attempt in its session, at the session's time;
// again says a retry was scheduled, Retries after the first attempt.
func (d *Deliverer) journal(sess *session.Session, j *job, h http.Header, out outcome, wall time.Time, again bool) {
	u, _ := url.Parse(j.d.URL)
	if u == nil {
		u = &url.URL{Path: j.d.URL}
	}
	// An endpoint's URL may carry a password (http://user:pw@…), which
	// the journal, like a request's Authorization, does not show.
	x := &session.Delivery{URL: u.Redacted(), Event: j.d.Event, Attempt: j.attempt, Error: out.err}
	ent := &session.Entry{
		Method: http.MethodPost, Path: u.Path, Query: u.RawQuery, Host: u.Host,
		Status: out.status, Provenance: prov.Webhook,
		ReqBody:  session.KeepBody(j.d.Body, false),
		Recorded: out.header,
		Extra:    &session.Extra{Delivery: x},
		Served:   wall.Unix(), Latency: out.elapsed, Answered: out.status != 0,
	}
	ent.SetRespBody(session.KeepBody(out.body, false))
	// Under the session's lock, as the engine journals, so that the entry
	// is numbered after the request that caused it.
	_ = sess.ReadContext(d.ctx, func(st session.Reader) {
		ent.At = st.Now(d.o.Now)
		if j.attempt == 1 {
			j.first = ent.At
		}
		if again {
			j.due = j.first + int64(d.o.Retries[j.attempt-1]/time.Second)
			x.Retry = j.due
		}
		d.o.Journal.Begin(sess, ent, h)
	})
}

// journalDropped journals a delivery dropped past MaxPending.
func (d *Deliverer) journalDropped(sess *session.Session, dl dialect.Delivery) {
	j := &job{d: dl}
	d.journal(sess, j, dl.Header, outcome{err: "dropped: the session has " + strconv.Itoa(d.o.MaxPending) + " deliveries to post already (the cap); wait for them, or fix the endpoints that fail", final: true}, d.o.Now(), false)
}
