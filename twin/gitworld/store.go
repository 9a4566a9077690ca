package gitworld

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"
)

// obj is one git object as stored: its type and its uncompressed
// content. Objects never change once stored, which is what lets forks
// share them.
type obj struct {
	typ  plumbing.ObjectType
	data []byte
}

// objectOverhead is what the accounting adds to an object's content for
// the map entry, the hash and the slice header it is held by, so that a
// world of many tiny objects is not counted as almost free.
const objectOverhead = 96

// layer is a frozen set of objects shared by the worlds forked from one
// another. A layer is never written after it is made.
type layer struct {
	objs   map[plumbing.Hash]obj
	parent *layer
	depth  int
	count  int // objects in this layer and every layer under it
}

// maxDepth bounds the chain a lookup walks: a fork past it merges the
// chain into one layer (copying the map, not the objects' bytes).
const maxDepth = 8

func (l *layer) get(h plumbing.Hash) (obj, bool) {
	for ; l != nil; l = l.parent {
		if o, ok := l.objs[h]; ok {
			return o, true
		}
	}
	return obj{}, false
}

// store is one repository's objects and references, in the shape go-git's
// plumbing wants (storer.EncodedObjectStorer and storer.ReferenceStorer),
// so that its object decoders, revlist and pack encoder read it directly.
//
// Its mutex is a leaf: it guards the maps against the pack encoder of a
// fetch, which reads on its own goroutine while a push may be adding
// objects. Everything that decides (limits, fast-forward checks) happens
// under the World's lock, above it.
type store struct {
	mu    sync.RWMutex
	base  *layer // shared with forks; frozen
	own   map[plumbing.Hash]obj
	bytes int64 // accounted size of own
	refs  map[plumbing.ReferenceName]*plumbing.Reference
	// admit is asked before an object is added; it is the World's budget.
	admit func(o obj) error
}

func newStore(admit func(obj) error) *store {
	return &store{
		own:   map[plumbing.Hash]obj{},
		refs:  map[plumbing.ReferenceName]*plumbing.Reference{},
		admit: admit,
	}
}

// count is the number of objects the store holds, shared or its own.
func (s *store) count() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := len(s.own)
	if s.base != nil {
		n += s.base.count
	}
	return n
}

// fork freezes s's own objects into a layer that s and the returned store
// share from then on; references are copied.
func (s *store) fork(admit func(obj) error) *store {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.own) > 0 {
		l := &layer{objs: s.own, parent: s.base, depth: 1, count: len(s.own)}
		if s.base != nil {
			l.depth += s.base.depth
			l.count += s.base.count
		}
		if l.depth > maxDepth {
			l = flatten(l)
		}
		s.base, s.own, s.bytes = l, map[plumbing.Hash]obj{}, 0
	}
	c := newStore(admit)
	c.base = s.base
	c.refs = maps.Clone(s.refs)
	return c
}

func flatten(l *layer) *layer {
	all := make(map[plumbing.Hash]obj, l.count)
	var chain []*layer
	for ; l != nil; l = l.parent {
		chain = append(chain, l)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		maps.Copy(all, chain[i].objs)
	}
	return &layer{objs: all, depth: 1, count: len(all)}
}

func (s *store) get(h plumbing.Hash) (obj, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if o, ok := s.own[h]; ok {
		return o, true
	}
	return s.base.get(h)
}

// put stores an object under its hash, once.
func (s *store) put(o obj) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(o.typ, o.data)
	if _, ok := s.get(h); ok {
		return h, nil
	}
	if err := s.admit(o); err != nil {
		return h, err
	}
	s.mu.Lock()
	s.own[h] = o
	s.bytes += int64(len(o.data)) + objectOverhead
	s.mu.Unlock()
	return h, nil
}

// hashes returns every object's hash in order, for snapshots.
func (s *store) hashes() []plumbing.Hash {
	s.mu.RLock()
	defer s.mu.RUnlock()
	seen := map[plumbing.Hash]struct{}{}
	for h := range s.own {
		seen[h] = struct{}{}
	}
	for l := s.base; l != nil; l = l.parent {
		for h := range l.objs {
			seen[h] = struct{}{}
		}
	}
	return slices.SortedFunc(maps.Keys(seen), func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
}

// storedObject is a stored object as go-git's plumbing.EncodedObject. It is
// read-only: its content is shared.
type storedObject struct {
	hash plumbing.Hash
	obj
}

func (o *storedObject) Hash() plumbing.Hash         { return o.hash }
func (o *storedObject) Type() plumbing.ObjectType   { return o.typ }
func (o *storedObject) SetType(plumbing.ObjectType) {}
func (o *storedObject) Size() int64                 { return int64(len(o.data)) }
func (o *storedObject) SetSize(int64)               {}
func (o *storedObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *storedObject) Writer() (io.WriteCloser, error) {
	return nil, fmt.Errorf("gitworld: object %s is stored and cannot be written", o.hash)
}

// NewEncodedObject is the object go-git encodes into before SetEncodedObject.
func (s *store) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

// SetEncodedObject stores o, subject to the World's limits.
func (s *store) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	data, err := readObject(o)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return s.put(obj{typ: o.Type(), data: data})
}

func readObject(o plumbing.EncodedObject) ([]byte, error) {
	if so, ok := o.(*storedObject); ok {
		return so.data, nil
	}
	r, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, 0, o.Size())
	b := bytes.NewBuffer(buf)
	if _, err := b.ReadFrom(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// EncodedObject returns the object h, of type t unless t is AnyObject.
func (s *store) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, ok := s.get(h)
	if !ok || (t != plumbing.AnyObject && o.typ != t) {
		return nil, plumbing.ErrObjectNotFound
	}
	return &storedObject{hash: h, obj: o}, nil
}

// IterEncodedObjects iterates over the objects of type t, in hash order.
func (s *store) IterEncodedObjects(t plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	var list []plumbing.EncodedObject
	for _, h := range s.hashes() {
		if o, ok := s.get(h); ok && (t == plumbing.AnyObject || o.typ == t) {
			list = append(list, &storedObject{hash: h, obj: o})
		}
	}
	return storer.NewEncodedObjectSliceIter(list), nil
}

func (s *store) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := s.get(h); !ok {
		return plumbing.ErrObjectNotFound
	}
	return nil
}

func (s *store) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	o, ok := s.get(h)
	if !ok {
		return 0, plumbing.ErrObjectNotFound
	}
	return int64(len(o.data)), nil
}

func (s *store) AddAlternate(string) error {
	return fmt.Errorf("gitworld: alternates are not supported")
}

// The reference half of storer.Storer.

func (s *store) SetReference(r *plumbing.Reference) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refs[r.Name()] = r
	return nil
}

func (s *store) CheckAndSetReference(r, old *plumbing.Reference) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old != nil {
		cur, ok := s.refs[old.Name()]
		if !ok || cur.Hash() != old.Hash() {
			return storage.ErrReferenceHasChanged
		}
	}
	s.refs[r.Name()] = r
	return nil
}

func (s *store) Reference(n plumbing.ReferenceName) (*plumbing.Reference, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.refs[n]
	if !ok {
		return nil, plumbing.ErrReferenceNotFound
	}
	return r, nil
}

// IterReferences iterates in name order, so advertisements and listings
// are the same bytes every time.
func (s *store) IterReferences() (storer.ReferenceIter, error) {
	return storer.NewReferenceSliceIter(s.sortedRefs()), nil
}

func (s *store) sortedRefs() []*plumbing.Reference {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := slices.Sorted(maps.Keys(s.refs))
	out := make([]*plumbing.Reference, len(names))
	for i, n := range names {
		out[i] = s.refs[n]
	}
	return out
}

func (s *store) RemoveReference(n plumbing.ReferenceName) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.refs, n)
	return nil
}

func (s *store) CountLooseRefs() (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.refs), nil
}

func (s *store) PackRefs() error { return nil }
