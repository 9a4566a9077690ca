package engine

import (
	"net/http"
	"time"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/session"
)

// serveProtocol answers a request the dialect says is its own protocol
// (dialect.Protocol: git's smart HTTP), from the
// session's attachment, and reports whether it did. The session's lock is
// held only to find (or, for a write, make) the attachment: the protocol
// streams outside it.
func (e *Engine) serveProtocol(w http.ResponseWriter, r *http.Request, name string, start time.Time) bool {
	ok, writes := e.protocol.Protocol(r.Method, r.URL.Path)
	if !ok {
		return false
	}
	sess, err := e.Session(name)
	if err != nil {
		e.refused(name, r, nil, e.writeSessionError(w, err), ProvFault, start)
		return true
	}
	var a dialect.Attachment
	if writes {
		err = sess.DoContext(r.Context(), func(st *session.State) {
			st.Begin(e.wallAt(start))
			a = st.Attach()
			st.MarkAttachment()
		})
	} else {
		err = sess.ReadContext(r.Context(), func(st session.Reader) {
			st.Begin(e.wallAt(start))
			a = st.Attachment()
		})
	}
	if err != nil {
		fail := e.unserved(err)
		apierr.Write(w, fail)
		e.refused(name, r, nil, fail.Status(), ProvFault, start)
		return true
	}
	if e.opts.NoControlHeaders {
		e.protocol.ServeProtocol(w, r, a)
		return true
	}
	w.Header()[SessionHeader] = sess.HeaderValue()
	e.protocol.ServeProtocol(&provenanceWriter{ResponseWriter: w}, r, a)
	return true
}

// provenanceWriter says where a protocol answer came from, as every
// answer of a twin does: the session's state (handler), or nothing the
// session has (miss: git's 401 and 404 for a repository it lacks).
type provenanceWriter struct {
	http.ResponseWriter
	wrote bool
}

func (p *provenanceWriter) WriteHeader(status int) {
	if !p.wrote {
		p.wrote = true
		prov := ProvHandler
		if status == http.StatusUnauthorized || status == http.StatusNotFound {
			prov = ProvMiss
		}
		p.Header()["X-Wraith-Provenance"] = provVals[prov]
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *provenanceWriter) Write(b []byte) (int, error) {
	if !p.wrote {
		p.WriteHeader(http.StatusOK)
	}
	return p.ResponseWriter.Write(b)
}

// Flush passes a streaming pack's flush on; Unwrap lets
// http.ResponseController reach the connection.
func (p *provenanceWriter) Flush() {
	if f, ok := p.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (p *provenanceWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }
