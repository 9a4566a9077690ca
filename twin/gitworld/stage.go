package gitworld

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// stage holds a pushed pack's objects until the push is accepted. It reads
// through to the repository for the bases of a thin pack's deltas.
type stage struct {
	r     *Repo
	objs  map[plumbing.Hash]obj
	order []plumbing.Hash // as received, so a commit stores them in the same order
}

func newStage(r *Repo) *stage { return &stage{r: r, objs: map[plumbing.Hash]obj{}} }

// read parses a pack into the stage. An empty body (a push of deletes
// only) is no pack. The pack is checked against the limits before it is
// parsed: go-git inflates an object to the size its header declares, and
// a delta to the size its own header declares, so those sizes are what
// bounds the work and the memory of a push.
func (s *stage) read(ctx context.Context, body io.Reader) error {
	if body == nil {
		return nil
	}
	data, err := io.ReadAll(ctxReader{ctx, body}) // bounded by the handler's MaxPushBytes
	if err != nil {
		return fmt.Errorf("reading the pushed pack: %w", err)
	}
	if len(data) == 0 {
		return nil
	}
	if err := checkPack(data, s.r.w.limits); err != nil {
		return err
	}
	p, err := packfile.NewParserWithStorage(packfile.NewScanner(bytes.NewReader(data)), s)
	if err != nil {
		return err
	}
	if _, err := p.Parse(); err != nil {
		return fmt.Errorf("unpacking the pushed objects: %w", err)
	}
	return nil
}

// checkPack refuses a pack of more objects than the World may hold, or
// with an object, a delta, or a delta's result larger than MaxBlobBytes.
func checkPack(data []byte, l Limits) error {
	sc := packfile.NewScanner(bytes.NewReader(data))
	_, count, err := sc.Header()
	if err != nil {
		return fmt.Errorf("reading the pushed pack: %w", err)
	}
	if int64(count) > int64(l.MaxObjects) {
		return fmt.Errorf("a pack of %d objects is more than the session's limit of %d: %w", count, l.MaxObjects, ErrTooManyObjects)
	}
	var head deltaHead
	for range count {
		oh, err := sc.NextObjectHeader()
		if err != nil {
			return fmt.Errorf("reading the pushed pack: %w", err)
		}
		if oh.Length > l.MaxBlobBytes {
			return fmt.Errorf("a %s of %d bytes is over the limit of %d bytes: %w", oh.Type, oh.Length, l.MaxBlobBytes, ErrBlobTooLarge)
		}
		if oh.Type != plumbing.OFSDeltaObject && oh.Type != plumbing.REFDeltaObject {
			continue // the scanner skips the content on the next header
		}
		head.n = 0
		if _, _, err := sc.NextObject(&head); err != nil {
			return fmt.Errorf("reading the pushed pack: %w", err)
		}
		if target, ok := head.targetSize(); !ok || target > uint64(l.MaxBlobBytes) {
			return fmt.Errorf("a delta whose object is %d bytes is over the limit of %d bytes: %w", target, l.MaxBlobBytes, ErrBlobTooLarge)
		}
	}
	return nil
}

// deltaHead keeps the first bytes of a delta: its base's size and its
// result's, each a little-endian base-128 number.
type deltaHead struct {
	b [20]byte
	n int
}

func (d *deltaHead) Write(p []byte) (int, error) {
	d.n += copy(d.b[min(d.n, len(d.b)):], p)
	return len(p), nil
}

func (d *deltaHead) targetSize() (uint64, bool) {
	b := d.b[:min(d.n, len(d.b))]
	_, n := binary.Uvarint(b) // the base's size
	if n <= 0 {
		return 0, false
	}
	v, m := binary.Uvarint(b[n:])
	return v, m > 0
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// The storer.EncodedObjectStorer the pack parser writes into.

func (s *stage) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (s *stage) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	if o.Size() > s.r.w.limits.MaxBlobBytes {
		return plumbing.ZeroHash, fmt.Errorf("a %s of %d bytes is over the limit of %d bytes: %w", o.Type(), o.Size(), s.r.w.limits.MaxBlobBytes, ErrBlobTooLarge)
	}
	data, err := readObject(o)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := plumbing.ComputeHash(o.Type(), data)
	if _, ok := s.objs[h]; !ok {
		if len(s.objs) >= s.r.w.limits.MaxObjects {
			return h, fmt.Errorf("the push holds more objects than the session's limit of %d: %w", s.r.w.limits.MaxObjects, ErrTooManyObjects)
		}
		s.objs[h] = obj{typ: o.Type(), data: data}
		s.order = append(s.order, h)
	}
	return h, nil
}

func (s *stage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, ok := s.objs[h]; ok && (t == plumbing.AnyObject || t == o.typ) {
		return &storedObject{hash: h, obj: o}, nil
	}
	return s.r.st.EncodedObject(t, h)
}

func (s *stage) IterEncodedObjects(plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return nil, errors.New("gitworld: a push's stage is not iterated")
}

func (s *stage) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := s.objs[h]; ok {
		return nil
	}
	return s.r.st.HasEncodedObject(h)
}

func (s *stage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if o, ok := s.objs[h]; ok {
		return int64(len(o.data)), nil
	}
	return s.r.st.EncodedObjectSize(h)
}

func (s *stage) AddAlternate(string) error {
	return errors.New("gitworld: alternates are not supported")
}

// commit stores the staged objects in the repository, all or none. The
// caller holds the World's write lock.
func (s *stage) commit() error {
	n := 0
	for _, h := range s.order {
		if _, ok := s.r.st.get(h); !ok {
			n++
		}
	}
	if w := s.r.w; w.objects+n > w.limits.MaxObjects {
		return fmt.Errorf("the push's %d new objects would take the session past its limit of %d git objects: %w", n, w.limits.MaxObjects, ErrTooManyObjects)
	}
	for _, h := range s.order {
		if _, err := s.r.st.put(s.objs[h]); err != nil {
			return err
		}
	}
	return nil
}
