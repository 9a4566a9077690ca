package session

import (
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/world"
)

// Reader is a session's state as a request that only reads it sees it:
// what it may look at, and Begin, whose tick and count are atomic.
// ReadContext hands one to a read that runs beside the session's other
// reads under its shared lock, so that a read cannot change the state
// because it has no method to; the compiler keeps it so, not a check at
// run time. A *State is a Reader too, for a read served under the
// exclusive lock.
type Reader interface {
	Begin(wall time.Time) int64
	Now(now func() time.Time) int64
	World() *world.World
	Get(id string) *world.Entity
	Changed(resource string) []*world.Entity
	Newest(resource string) *world.Entity
	Visible(resource string) []*world.Entity
	HasChanges(resource string) bool
	PIIVerbatim() []string
	Attachment() dialect.Attachment
}

var (
	_ Reader = (*State)(nil)
	_ Reader = view{}
)

// view is the Reader ReadContext hands out: not a *State, so a type
// assertion cannot reach the methods that change one.
type view struct{ st *State }

func (v view) Begin(wall time.Time) int64              { return v.st.Begin(wall) }
func (v view) Now(now func() time.Time) int64          { return v.st.Now(now) }
func (v view) World() *world.World                     { return v.st.World() }
func (v view) Get(id string) *world.Entity             { return v.st.Get(id) }
func (v view) Changed(resource string) []*world.Entity { return v.st.Changed(resource) }
func (v view) Newest(resource string) *world.Entity    { return v.st.newestOf(resource) }
func (v view) Visible(resource string) []*world.Entity { return v.st.Visible(resource) }
func (v view) HasChanges(resource string) bool         { return v.st.HasChanges(resource) }
func (v view) PIIVerbatim() []string                   { return v.st.PIIVerbatim() }
func (v view) Attachment() dialect.Attachment          { return v.st.Attachment() }
