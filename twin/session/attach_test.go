package session

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/world"
)

// notes is a fake attachment: a list of strings, shared with its forks
// until one side appends (pure logic, so a fake is what it should be).
type notes struct{ l []string }

func (n *notes) Fork() dialect.Attachment  { return &notes{l: slices.Clip(n.l)} }
func (n *notes) Snapshot() ([]byte, error) { return []byte(join(n.l)), nil }
func (n *notes) Size() int64               { return int64(len(join(n.l))) }

func join(l []string) string {
	s := ""
	for _, v := range l {
		s += v + ";"
	}
	return s
}

type noteMaker struct{ made int }

func (m *noteMaker) NewAttachment() dialect.Attachment { m.made++; return &notes{} }
func (m *noteMaker) RestoreAttachment(b []byte) (dialect.Attachment, error) {
	if len(b) == 0 || b[len(b)-1] != ';' {
		return nil, errors.New("not a list of notes")
	}
	n := &notes{}
	start := 0
	for i, c := range b {
		if c == ';' {
			n.l = append(n.l, string(b[start:i]))
			start = i + 1
		}
	}
	return n, nil
}

func note(st *State, v string) {
	n := st.Attach().(*notes)
	n.l = append(n.l, v)
	st.MarkAttachment()
}

func notesOf(tb testing.TB, s *Session) string {
	tb.Helper()
	var out string
	s.Do(func(st *State) {
		if a := st.Attachment(); a != nil {
			out = join(a.(*notes).l)
		}
	})
	return out
}

// TestAttachmentLifecycle follows a session's attachment through what a
// session goes through: made on first use only, forked apart, dropped on
// reset, carried by a snapshot and read back by a restore.
func TestAttachmentLifecycle(t *testing.T) {
	w := world.NewBuilder().Build()
	maker := &noteMaker{}
	store := NewStore(0)
	store.SetAttacher(maker)
	s, _, err := store.GetOrCreate("a", func() *Session { return New("a", Settings{}, w, true) })
	if err != nil {
		t.Fatal(err)
	}
	s.Do(func(st *State) {
		if st.Attachment() != nil {
			t.Errorf("a new session holds an attachment before anything asked for one")
		}
	})
	if maker.made != 0 {
		t.Fatalf("want no attachment made before a write asks, have %d", maker.made)
	}
	s.Do(func(st *State) { note(st, "one") })

	var before string
	s.Do(func(st *State) { before, _ = st.Digest() })
	f, err := store.Fork(context.Background(), s, "b")
	if err != nil {
		t.Fatal(err)
	}
	s.Do(func(st *State) { note(st, "a-only") })
	f.Do(func(st *State) { note(st, "b-only") })
	if want, have := "one;a-only;", notesOf(t, s); want != have {
		t.Errorf("source: want %q, have %q", want, have)
	}
	if want, have := "one;b-only;", notesOf(t, f); want != have {
		t.Errorf("fork: want %q, have %q", want, have)
	}
	var after, forked string
	s.Do(func(st *State) { after, _ = st.Digest() })
	f.Do(func(st *State) { forked, _ = st.Digest() })
	if before == after || after == forked {
		t.Errorf("digests: want the attachment's changes in them, have %s before, %s after, %s in the fork", before, after, forked)
	}
	var size int64
	s.Do(func(st *State) { size = st.AttachmentSize() })
	if want := int64(len("one;a-only;")); size != want {
		t.Errorf("size: want %d, have %d", want, size)
	}

	snap, err := SnapshotOf(s, "t", "d")
	if err != nil {
		t.Fatal(err)
	}
	if want, have := "one;a-only;", string(snap.Attachment); want != have {
		t.Errorf("snapshot's attachment: want %q, have %q", want, have)
	}
	set, _ := s.Settings()
	r, err := store.Restore("c", set, w, &snap.StateDoc)
	if err != nil {
		t.Fatal(err)
	}
	if want, have := "one;a-only;", notesOf(t, r); want != have {
		t.Errorf("restored: want %q, have %q", want, have)
	}

	bad := snap.StateDoc
	bad.Attachment = []byte("no terminator")
	_, err = store.Restore("d", set, w, &bad)
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.InvalidSnapshot {
		t.Errorf("a broken attachment: want invalid-snapshot, have %v", err)
	}
	if _, err := NewStore(0).Restore("e", set, w, &snap.StateDoc); err == nil {
		t.Errorf("a store without an attacher restored a snapshot holding an attachment")
	}

	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if have := notesOf(t, s); have != "" {
		t.Errorf("after reset: want no attachment, have %q", have)
	}
	s.Do(func(st *State) { note(st, "again") }) // the attacher survives the reset
	if want, have := "again;", notesOf(t, s); want != have {
		t.Errorf("after reset and a write: want %q, have %q", want, have)
	}

	plain, err := SnapshotOf(New("p", Settings{}, w, true), "t", "d")
	if err != nil {
		t.Fatal(err)
	}
	if plain.Attachment != nil {
		t.Errorf("a session without an attachment snapshots one: %q", plain.Attachment)
	}
}
