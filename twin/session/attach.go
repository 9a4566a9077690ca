package session

import (
	"crypto/sha256"
	"fmt"
	"hash"

	"github.com/wraithdev/wraith/twin/dialect"
)

// A session may hold, beside its entities, one dialect.Attachment: state
// its twin's dialect keeps and the engine does not model (GitHub's git
// repositories). The store is given the dialect's Attacher once
// (SetAttacher); a session makes its attachment the first time a write
// asks for it (State.Attach), so a session that never needs one pays
// nothing. Fork forks it, Reset drops it, a snapshot carries it
// (StateDoc.Attachment) and Restore reads it back through the Attacher.
//
// It is not durable: a store with a persister (--state-dir) keeps the
// entities, not the attachment, across a restart.

// SetAttacher makes a the maker of the store's sessions' attachments.
// Call it before serving; nil (the default) gives sessions none.
func (st *Store) SetAttacher(a dialect.Attacher) { st.attacher = a }

// Attachment returns the session's attachment, or nil when it has none:
// what a read sees, which must not make one.
func (st *State) Attachment() dialect.Attachment { return st.ext }

// Attach returns the session's attachment, making it when it has none
// and the store has an Attacher; nil when it has none. Call it under the
// exclusive lock.
func (st *State) Attach() dialect.Attachment {
	if st.ext == nil && st.attacher != nil {
		st.ext = st.attacher.NewAttachment()
	}
	return st.ext
}

// AttachmentSize is the bytes the session's attachment holds on its own
// (0 for none).
func (st *State) AttachmentSize() int64 {
	if st.ext == nil {
		return 0
	}
	return st.ext.Size()
}

// MarkAttachment records that the locked section changed the session's
// attachment, as Put records an entity.
func (st *State) MarkAttachment() { st.mark(Wrote) }

// digestAttachment adds the session's attachment to a digest, after its
// entities: a line naming it and the sha256 of its snapshot, which is the
// same bytes for the same state. A session without one adds nothing, so
// its digest is what it was before attachments. An attachment that cannot
// be snapshotted adds a line saying so, which no state's sum matches.
func (st *State) digestAttachment(h hash.Hash) {
	if st.ext == nil {
		return
	}
	b, err := st.ext.Snapshot()
	if err != nil {
		h.Write([]byte("attachment\x00unreadable\n"))
		return
	}
	sum := sha256.Sum256(b)
	h.Write([]byte("attachment\x00"))
	h.Write(sum[:])
	h.Write([]byte("\n"))
}

// snapshotAttachment is the attachment as a snapshot carries it: nil
// for none, so a snapshot of a session without one reads as before.
func (st *State) snapshotAttachment() ([]byte, error) {
	if st.ext == nil {
		return nil, nil
	}
	b, err := st.ext.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("snapshot the session's attachment: %w", err)
	}
	return b, nil
}

// restoreAttachment reads a snapshot's attachment into s, with the
// store's Attacher.
func (st *Store) restoreAttachment(s *Session, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	if st.attacher == nil {
		return invalid("attachment", "the snapshot holds state this twin's dialect does not keep: restore it into the twin it was taken of")
	}
	a, err := st.attacher.RestoreAttachment(data)
	if err != nil {
		return invalid("attachment", "%v", err)
	}
	s.st.ext = a
	return nil
}
