package gitworld

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// A snapshot is a World in bytes: the same World always gives the same
// bytes, and Restore gives back a World that answers every read the same.
//
//	"wraith-gitworld 1\n"
//	uvarint repositories, in name order, each:
//	  string name, string default branch
//	  uvarint references, in name order, each:
//	    string name, byte 0 + 20-byte hash | byte 1 + string target (symbolic)
//	  uvarint objects, in hash order, each:
//	    20-byte hash, byte type (git's: 1 commit, 2 tree, 3 blob, 4 tag),
//	    uvarint length, content
//	  uvarint releases, oldest first, each:
//	    uvarint number, string tag, target, name, body, author,
//	    byte flags (1 draft, 2 prerelease), uvarint created
//
// where a string is a uvarint length and its bytes. Objects are not
// compressed, so equal worlds give equal bytes whatever zlib does.
// Version 1, written before releases were kept, has no releases part
// and is still read.

const (
	snapshotMagic   = "wraith-gitworld 2\n"
	snapshotMagicV1 = "wraith-gitworld 1\n"
)

// Snapshot encodes the World.
func (w *World) Snapshot() ([]byte, error) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var buf bytes.Buffer
	buf.WriteString(snapshotMagic)
	putUvarint(&buf, uint64(len(w.repos)))
	for _, k := range slices.Sorted(maps.Keys(w.repos)) {
		r := w.repos[k]
		putString(&buf, r.name)
		putString(&buf, r.defaultBranch)
		refs := r.st.sortedRefs()
		putUvarint(&buf, uint64(len(refs)))
		for _, ref := range refs {
			putString(&buf, ref.Name().String())
			if ref.Type() == plumbing.SymbolicReference {
				buf.WriteByte(1)
				putString(&buf, ref.Target().String())
			} else {
				buf.WriteByte(0)
				h := ref.Hash()
				buf.Write(h[:])
			}
		}
		hashes := r.st.hashes()
		putUvarint(&buf, uint64(len(hashes)))
		for _, h := range hashes {
			o, _ := r.st.get(h)
			buf.Write(h[:])
			buf.WriteByte(byte(o.typ))
			putUvarint(&buf, uint64(len(o.data)))
			buf.Write(o.data)
		}
		putUvarint(&buf, uint64(len(r.releases)))
		for _, rel := range r.releases {
			putUvarint(&buf, uint64(rel.Number))
			for _, s := range []string{rel.Tag, rel.Target, rel.Name, rel.Body, rel.Author} {
				putString(&buf, s)
			}
			var flags byte
			if rel.Draft {
				flags |= 1
			}
			if rel.Prerelease {
				flags |= 2
			}
			buf.WriteByte(flags)
			putUvarint(&buf, uint64(max(rel.Created, 0)))
		}
	}
	return buf.Bytes(), nil
}

func putUvarint(b *bytes.Buffer, v uint64) { b.Write(binary.AppendUvarint(nil, v)) }
func putString(b *bytes.Buffer, s string) {
	putUvarint(b, uint64(len(s)))
	b.WriteString(s)
}

// ErrSnapshot is wrapped by Restore's errors for bytes that are not a
// snapshot.
var ErrSnapshot = errors.New("not a git world snapshot")

// Restore decodes a snapshot into a new World with limits l. It checks
// every object's content against its hash and every name, and refuses a
// snapshot past the limits.
func Restore(data []byte, l Limits) (*World, error) {
	d := &decoder{b: data}
	v1 := bytes.HasPrefix(data, []byte(snapshotMagicV1))
	if !v1 && !bytes.HasPrefix(data, []byte(snapshotMagic)) {
		return nil, fmt.Errorf("gitworld: the snapshot does not start with %q: %w", snapshotMagic[:len(snapshotMagic)-1], ErrSnapshot)
	}
	d.b = d.b[len(snapshotMagic):]
	w := New(l)
	w.mu.Lock()
	defer w.mu.Unlock()
	nrepos := d.count()
	for range nrepos {
		name, branch := d.str(), d.str()
		if d.err != nil {
			break
		}
		if _, _, err := splitName(name); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
		}
		if _, dup := w.repos[lowerName(name)]; dup {
			return nil, fmt.Errorf("gitworld: snapshot: repository %s twice: %w", name, ErrSnapshot)
		}
		r := &Repo{w: w, name: name, defaultBranch: branch, st: newStore(w.admit)}
		for range d.count() {
			ref := plumbing.ReferenceName(d.str())
			if ref != plumbing.HEAD && !validRefName(ref.String()) {
				d.fail("reference name %q", ref)
			}
			switch kind := d.byte(); kind {
			case 0:
				var h plumbing.Hash
				copy(h[:], d.bytes(len(h)))
				r.st.refs[ref] = plumbing.NewHashReference(ref, h)
			case 1:
				r.st.refs[ref] = plumbing.NewSymbolicReference(ref, plumbing.ReferenceName(d.str()))
			default:
				d.fail("reference kind %d", kind)
			}
		}
		w.repos[lowerName(name)] = r
		for range d.count() {
			var want plumbing.Hash
			copy(want[:], d.bytes(len(want)))
			typ := plumbing.ObjectType(d.byte())
			n := d.count()
			content := d.bytes(n)
			if d.err != nil {
				break
			}
			if !typ.Valid() || typ == plumbing.OFSDeltaObject || typ == plumbing.REFDeltaObject {
				d.fail("object type %d", typ)
				break
			}
			h, err := r.st.put(obj{typ: typ, data: bytes.Clone(content)})
			if err != nil {
				return nil, fmt.Errorf("gitworld: restoring %s: %w", name, err)
			}
			if h != want {
				return nil, fmt.Errorf("gitworld: snapshot: object %s of %s has the content of %s: the snapshot is damaged: %w", want, name, h, ErrSnapshot)
			}
		}
		if !v1 {
			r.releases = d.releases(r.name)
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d bytes after the last repository", len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	for _, r := range w.repos {
		for _, ref := range r.st.refs {
			if ref.Type() == plumbing.HashReference {
				if _, ok := r.st.get(ref.Hash()); !ok {
					return nil, fmt.Errorf("gitworld: %s's %s names %s, which the snapshot does not hold: %w", r.name, ref.Name(), ref.Hash(), ErrSnapshot)
				}
			}
		}
	}
	return w, nil
}

// decoder reads a snapshot; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("gitworld: snapshot: "+format+": %w", append(args, ErrSnapshot)...)
	}
	d.b = nil
}

func (d *decoder) count() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > uint64(len(d.b)) { // nothing counted is larger than the bytes left
		d.fail("a bad length")
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail("cut short")
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) byte() byte {
	b := d.bytes(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (d *decoder) str() string { return string(d.bytes(d.count())) }

// releases reads a repository's releases, checking their order and tags.
func (d *decoder) releases(repo string) []Release {
	n := d.count()
	if n > maxReleases {
		d.fail("%d releases of %s, past the limit of %d", n, repo, maxReleases)
		return nil
	}
	var out []Release
	for range n {
		rel := Release{Number: d.count()}
		rel.Tag, rel.Target, rel.Name, rel.Body, rel.Author = d.str(), d.str(), d.str(), d.str(), d.str()
		flags := d.byte()
		rel.Draft, rel.Prerelease = flags&1 != 0, flags&2 != 0
		rel.Created = d.time()
		if d.err != nil {
			return nil
		}
		if flags > 3 || !validRefName("refs/tags/"+rel.Tag) || (len(out) > 0 && rel.Number <= out[len(out)-1].Number) || rel.Number < 1 {
			d.fail("release %d (%q) of %s", rel.Number, rel.Tag, repo)
			return nil
		}
		out = append(out, rel)
	}
	return out
}

// time is a uvarint that counts no bytes: unix seconds.
func (d *decoder) time() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > 1<<40 {
		d.fail("a bad time")
		return 0
	}
	d.b = d.b[n:]
	return int64(v)
}
