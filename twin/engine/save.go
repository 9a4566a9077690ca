package engine

import (
	"fmt"
	"net/http"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// save saves o as the session's version of ent and answers with it, and
// reports whether it did. o is scrubbed already (see scrubbed). It saves
// nothing when the client went away meanwhile, or when o's encoding is
// past Options.MaxBody (answering 400).
//
// The session keeps o as a patch over its resource's skeleton (see
// object.Skeleton): the fields that differ, encoded, and not the
// skeleton's bytes again. The answer is rebuilt from the patch, which
// copies the skeleton's unchanged runs instead of encoding them.
func (e *Engine) save(st *session.State, req *request, o *object.Object, ent *world.Entity, a *answer) bool {
	if e.gone(req, a) {
		return false
	}
	ne := &world.Entity{
		ID:         ent.ID,
		Resource:   ent.Resource,
		Created:    ent.Created,
		Seq:        ent.Seq,
		Provenance: world.Handler,
	}
	ne.SetScope(ent.Scope())
	skel, known := req.match.Value.Resource.Encoded, ne.Known()
	scratch := e.scratchBuf()
	patch := skel.AppendDiff((*scratch)[:0], o, known)
	body := skel.Append(make([]byte, 0, skel.Len(patch, known)), patch, known)
	var kept []byte
	if len(patch) < len(body) {
		kept = make([]byte, len(patch))
		copy(kept, patch)
	}
	e.putScratch(scratch, patch)
	if e.tooLarge(a, ent.ID, body) {
		return false
	}
	if kept != nil {
		ne.SetPatch(skel, kept)
	} else {
		ne.SetBody(body)
	}
	st.Put(ne)
	a.status, a.body, a.prov, a.entity = http.StatusOK, body, ProvHandler, ne
	return true
}

// gone reports whether the request's client went away, answering 503
// request-canceled (which nobody reads) so the caller stops its work.
// Writes ask before they store: a request whose client hung up changes
// nothing.
func (e *Engine) gone(req *request, a *answer) bool {
	if req.ctx == nil || req.ctx.Err() == nil {
		return false
	}
	a.fail(apierr.New(apierr.RequestCanceled, "the request ended before it was answered: "+req.ctx.Err().Error()))
	a.prov = ProvHandler
	return true
}

// tooLarge reports whether an entity's encoding passes Options.MaxBody,
// answering 400 entity-too-large in the provider's invalid-request shape
// when it does. Without it, updates that each add a little grow one entity
// without bound, although every request is within --max-body.
func (e *Engine) tooLarge(a *answer, id string, body []byte) bool {
	max := e.opts.MaxBody
	if max <= 0 || int64(len(body)) <= max {
		return false
	}
	msg := fmt.Sprintf("Invalid request: %s would grow to %d bytes, past Wraith's limit of %d bytes per entity (--max-body): remove fields or metadata keys instead of adding more", id, len(body), max)
	e.invalid(a, "", msg)
	a.limit = apierr.EntityTooLarge
	if a.wraith {
		a.fail(apierr.New(apierr.EntityTooLarge, msg).With("limit", max))
	}
	return true
}

// encode returns o's encoding in a slice of exactly its length: sessions
// keep these bodies, so slack capacity would be held for their lifetime.
// The encoding is built in a pooled scratch buffer and copied once.
func (e *Engine) encode(o *object.Object) []byte {
	scratch := e.scratchBuf()
	buf := o.AppendJSON((*scratch)[:0])
	body := make([]byte, len(buf))
	copy(body, buf)
	e.putScratch(scratch, buf)
	return body
}

// scratchBuf returns a pooled buffer to encode into; putScratch returns
// it with buf, what was appended to it, which may have grown.
func (e *Engine) scratchBuf() *[]byte {
	scratch, _ := e.scratch.Get().(*[]byte)
	if scratch == nil {
		b := make([]byte, 0, 4096)
		scratch = &b
	}
	return scratch
}

func (e *Engine) putScratch(scratch *[]byte, buf []byte) {
	if cap(buf) <= 64<<10 { // do not pool an outsized buffer
		*scratch = buf
		e.scratch.Put(scratch)
	}
}
