package gitworld

import (
	"bufio"
	"context"
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
// only) is no pack.
func (s *stage) read(ctx context.Context, body io.Reader) error {
	if body == nil {
		return nil
	}
	br := bufio.NewReader(body)
	if _, err := br.Peek(1); errors.Is(err, io.EOF) {
		return nil
	}
	p, err := packfile.NewParserWithStorage(packfile.NewScanner(ctxReader{ctx, br}), s, limitObserver{s.r.w.limits})
	if err != nil {
		return err
	}
	if _, err := p.Parse(); err != nil {
		return fmt.Errorf("unpacking the pushed objects: %w", err)
	}
	return nil
}

// commit stores the staged objects in the repository. The caller holds
// the World's write lock.
func (s *stage) commit() error {
	for _, h := range s.order {
		if _, err := s.r.st.put(s.objs[h]); err != nil {
			return err
		}
	}
	return nil
}

// limitObserver refuses a pack whose header or whose objects are past the
// World's limits before they are inflated.
type limitObserver struct{ l Limits }

func (o limitObserver) OnHeader(count uint32) error {
	if int64(count) > int64(o.l.MaxObjects) {
		return fmt.Errorf("a pack of %d objects is more than the session's limit of %d: %w", count, o.l.MaxObjects, ErrTooManyObjects)
	}
	return nil
}

func (o limitObserver) OnInflatedObjectHeader(t plumbing.ObjectType, size, _ int64) error {
	if size > o.l.MaxBlobBytes {
		return fmt.Errorf("a %s of %d bytes is over the limit of %d bytes: %w", t, size, o.l.MaxBlobBytes, ErrBlobTooLarge)
	}
	return nil
}

func (limitObserver) OnInflatedObjectContent(plumbing.Hash, int64, uint32, []byte) error { return nil }
func (limitObserver) OnFooter(plumbing.Hash) error                                       { return nil }

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
