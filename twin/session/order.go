package session

import (
	"sort"
	"sync"

	"github.com/wraithdev/wraith/twin/world"
)

// orderFrom is how many changes of a resource a session holds before
// Visible keeps the resource's order instead of sorting it per call.
const orderFrom = 128

// Visible returns the session's entities of resource, newest first (see
// world.Newer): its starting world with its changes applied, and what it
// created. The slice is the caller's to read, never to change; it stays
// as it was when later writes change the session.
//
// A resource the session changed little is sorted per call. For one it
// changed a lot (a session after thousands of creates), the first call
// sorts and the session keeps the order, following each write: a create,
// newest, goes in front at no cost, an update takes its version's place,
// and a delete or an update that moves an entity shifts part of the order.
// So a list of ten customers out of a hundred thousand costs a page, not
// a sort.
func (st *State) Visible(resource string) []*world.Entity {
	n := st.overlay.countOf(resource)
	if n == 0 {
		return st.world.List(resource)
	}
	if n < orderFrom {
		return st.sortVisible(resource)
	}
	return st.orders.get(resource, func() []*world.Entity { return st.sortVisible(resource) })
}

// sortVisible is Visible made afresh: a new slice.
func (st *State) sortVisible(resource string) []*world.Entity {
	base := st.world.List(resource)
	out := make([]*world.Entity, 0, len(base)+st.overlay.countOf(resource))
	st.eachVisible(resource, func(e *world.Entity) { out = append(out, e) })
	world.SortNewestFirst(out)
	return out
}

// eachVisible calls fn with each of the session's entities of resource,
// in no order: each world entity of resource in its current version, when
// that is not deleted and still of resource, and each entity of resource
// the session made or moved to it.
func (st *State) eachVisible(resource string, fn func(e *world.Entity)) {
	for _, e := range st.world.List(resource) {
		if cur := st.Get(e.ID); !cur.Deleted && cur.Resource == resource {
			fn(cur)
		}
	}
	st.overlay.eachOf(resource, func(e *world.Entity) {
		if was := st.world.Get(e.ID); (was == nil || was.Resource != resource) && !e.Deleted {
			fn(e)
		}
	})
}

// orders is what Visible keeps per resource. Reads under the session's
// shared lock build an order beside each other, so mu guards the map;
// writes come under the exclusive lock, when no read holds it.
type orders struct {
	mu sync.Mutex
	m  map[string]*order
}

// order is one resource's visible entities, newest first: buf[start:].
// Slots before start were never part of a slice handed out, so a create
// goes in front without touching what a caller holds; any other change,
// once a slice was handed, is made on a copy.
type order struct {
	buf    []*world.Entity
	start  int
	handed bool // a slice of buf was handed out since it was made
}

// get returns resource's order, made by build when none is kept.
func (o *orders) get(resource string, build func() []*world.Entity) []*world.Entity {
	o.mu.Lock()
	defer o.mu.Unlock()
	ord := o.m[resource]
	if ord == nil {
		if o.m == nil {
			o.m = map[string]*order{}
		}
		ord = &order{buf: build()}
		o.m[resource] = ord
	}
	ord.handed = true
	return ord.buf[ord.start:]
}

// note follows a write: e is the id's new version, prev the version it
// replaces (nil for a new id). An order that cannot follow (it lacks
// prev's version) is dropped, to be made again by the next call.
func (o *orders) note(prev, e *world.Entity) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.m) == 0 {
		return
	}
	if prev != nil && !prev.Deleted {
		if ord := o.m[prev.Resource]; ord != nil {
			same := !e.Deleted && e.Resource == prev.Resource && e.Created == prev.Created && e.Seq == prev.Seq
			if (same && !ord.replace(prev, e)) || (!same && !ord.remove(prev)) {
				delete(o.m, prev.Resource)
			}
			if same {
				return
			}
		}
	}
	if !e.Deleted {
		if ord := o.m[e.Resource]; ord != nil {
			ord.insert(e)
		}
	}
}

// find returns where k's place is in the order: its index when held is
// true, else where it would go.
func (ord *order) find(k *world.Entity) (i int, held bool) {
	l := ord.buf[ord.start:]
	i = sort.Search(len(l), func(i int) bool { return !world.Newer(l[i], k) })
	return i, i < len(l) && l[i].ID == k.ID
}

// own makes buf a copy no caller holds, with room in front for creates.
func (ord *order) own() {
	l := ord.buf[ord.start:]
	room := max(16, len(l)/2)
	buf := make([]*world.Entity, room+len(l))
	copy(buf[room:], l)
	ord.buf, ord.start, ord.handed = buf, room, false
}

func (ord *order) replace(prev, e *world.Entity) bool {
	i, held := ord.find(prev)
	if !held {
		return false
	}
	if ord.handed {
		ord.own()
	}
	ord.buf[ord.start+i] = e
	return true
}

func (ord *order) remove(prev *world.Entity) bool {
	i, held := ord.find(prev)
	if !held {
		return false
	}
	if ord.handed {
		ord.own()
	}
	s := ord.start
	copy(ord.buf[s+1:s+i+1], ord.buf[s:s+i])
	ord.buf[s] = nil
	ord.start++
	return true
}

func (ord *order) insert(e *world.Entity) {
	i, _ := ord.find(e)
	if ord.start == 0 || (i > 0 && ord.handed) {
		ord.own()
	}
	s := ord.start
	copy(ord.buf[s-1:s-1+i], ord.buf[s:s+i]) // nothing to move for the newest
	ord.buf[s-1+i] = e
	ord.start--
}
