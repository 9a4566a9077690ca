package durable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// journalMagic opens every journal: the format, in a line a person can
// read with head -1. Format 2's checksum covers the length field too;
// format 1's did not. A format 1 journal holding only its header (what a
// clean stop leaves) is taken and started over; one holding records is
// refused (see openJournal).
const (
	journalMagic   = "wraith state journal 2\n"
	journalMagicV1 = "wraith state journal 1\n"
)

// ErrDamaged is what Open's error wraps when the folder is damaged: a
// journal record before the journal's end does not read (and whole
// records follow it), or a checkpoint does not read.
var ErrDamaged = errors.New("state folder damaged")

// frameHeader is a record's payload length and the CRC-32C of its
// length, sequence number and payload, both little-endian uint32, then its
// sequence number, a little-endian uint64. The number is outside the
// payload so that a record can be encoded before it gets one: encoding
// runs in the writers, side by side, and only the numbering and the
// append are serialized.
const frameHeader = 16

// maxRecord bounds one record's payload: a session whole is bounded by
// --max-entities times --max-body, and a length past this is a torn or
// foreign frame, not a record.
const maxRecord = 1 << 30

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// growBy is how far the journal is written ahead of its records, with
// zeros. A record then overwrites bytes the file already has, so the
// fdatasync that makes it durable has only data to flush: a file that
// grows at every sync also has its size and extents to commit through the
// file system's own journal, which made a group commit about one and a
// half times as long where it was measured (docs/durable.md). Zeros end
// the records: a frame of length 0 is never written.
const growBy = 4 << 20

// journal is the append-only file of records. Only the committer writes
// it, after recovery has read it.
type journal struct {
	f     *os.File
	size  int64 // the end of the last record
	alloc int64 // the file's size: the records, then zeros written ahead
	ahead int64 // how far to write ahead; 0 means growBy
}

// openJournal opens (or makes) the journal at path and returns it with
// its whole records, in order. A torn tail (a frame cut short, or one
// whose CRC does not match: a write the process died in) is copied aside
// to path.torn-OFFSET and cut off; cutAt is its offset (-1 for none). A
// bad frame followed by a whole one of a later sequence number is not a
// torn write but damage, and cutting there would lose acknowledged
// records: the journal is refused, untouched.
func openJournal(path string) (j *journal, records []frame, cutAt, cutBytes int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, -1, 0, err
	}
	j = &journal{f: f}
	raw, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, nil, -1, 0, err
	}
	if len(raw) == 0 {
		if err := j.reset(); err != nil {
			f.Close()
			return nil, nil, -1, 0, err
		}
		return j, nil, -1, 0, nil
	}
	if bytes.Equal(raw, []byte(journalMagicV1)) { // a format 1 journal a clean stop emptied
		if err := j.reset(); err != nil {
			f.Close()
			return nil, nil, -1, 0, err
		}
		return j, nil, -1, 0, nil
	}
	if bytes.HasPrefix(raw, []byte(journalMagicV1)) {
		f.Close()
		return nil, nil, -1, 0, fmt.Errorf("%s is a journal of format 1, with records this wraith does not read: start the folder once with the wraith that wrote it and stop it cleanly (SIGTERM checkpoints and empties the journal), then start this one; or pick another --state-dir", path)
	}
	if !bytes.HasPrefix(raw, []byte(journalMagic)) {
		f.Close()
		if len(raw) < len(journalMagic) && bytes.HasPrefix([]byte(journalMagic), raw) {
			// Died while writing the header of a new journal.
			j, err := newJournal(path)
			return j, nil, 0, int64(len(raw)), err
		}
		return nil, nil, -1, 0, fmt.Errorf("%s does not start with %q: it is not a journal of this wraith version", path, journalMagic)
	}
	off := int64(len(journalMagic))
	records, good := readFrames(raw[off:])
	end := off + good
	cutAt, cutBytes = -1, 0
	j.alloc = int64(len(raw))
	if end < int64(len(raw)) && !zeros(raw[end:]) {
		var last uint64
		if len(records) > 0 {
			last = records[len(records)-1].seq
		}
		if at, seq, ok := wholeAfter(raw, end+1, last); ok {
			f.Close()
			return nil, nil, -1, 0, fmt.Errorf("%w: %s: the record at offset %d does not read, yet a whole record (number %d) follows at offset %d: the file was damaged, not torn by a crash, and cutting it there would lose writes that were acknowledged. Nothing was changed: copy the folder aside to keep what it holds, and start the twin with another --state-dir", ErrDamaged, path, end, seq, at)
		}
		cutAt, cutBytes = end, int64(len(raw))-end
		if err := keepTorn(path, end, raw[end:]); err != nil {
			f.Close()
			return nil, nil, -1, 0, fmt.Errorf("copy the torn tail of %s aside before cutting it: %w", path, err)
		}
		if err := f.Truncate(end); err != nil {
			f.Close()
			return nil, nil, -1, 0, fmt.Errorf("cut the torn tail of %s at %d: %w", path, end, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, -1, 0, err
		}
		j.alloc = end
	}
	j.size = end
	return j, records, cutAt, cutBytes, nil
}

// zeros reports whether b is all zero bytes: the journal's room written
// ahead, which no record has reached (a record cut short in it is not).
func zeros(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// newJournal makes an empty journal at path, replacing what is there.
// The caller syncs the folder if the name is new.
func newJournal(path string) (*journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	j := &journal{f: f}
	if err := j.reset(); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// frame is one whole record of the journal.
type frame struct {
	seq     uint64
	payload []byte
}

// readFrames splits b into whole records and returns how many bytes they
// take; what follows them is a torn tail, or damage (wholeAfter).
func readFrames(b []byte) (frames []frame, good int64) {
	for {
		fr, ok := frameAt(b, good)
		if !ok {
			return frames, good
		}
		frames = append(frames, fr)
		good += frameHeader + int64(len(fr.payload))
	}
}

// frameAt reads the frame at offset at of b, if a whole one is there.
func frameAt(b []byte, at int64) (frame, bool) {
	if int64(len(b))-at < frameHeader {
		return frame{}, false
	}
	h := b[at : at+frameHeader]
	n := binary.LittleEndian.Uint32(h)
	if n == 0 || n > maxRecord || int64(len(b))-at-frameHeader < int64(n) {
		return frame{}, false
	}
	p := b[at+frameHeader : at+frameHeader+int64(n)]
	if frameSum(h, p) != binary.LittleEndian.Uint32(h[4:]) {
		return frame{}, false
	}
	return frame{seq: binary.LittleEndian.Uint64(h[8:]), payload: p}, true
}

// frameSum is the CRC-32C of a frame's length, sequence number and
// payload.
func frameSum(h []byte, p []byte) uint32 {
	crc := crc32.Checksum(h[:4], castagnoli)
	crc = crc32.Update(crc, castagnoli, h[8:frameHeader])
	return crc32.Update(crc, castagnoli, p)
}

// wholeAfter looks, from offset from of b on, for a whole record
// numbered after seq: one there means the bad frame before it is not the
// tail. A crash leaves a prefix of its last write, never a whole record
// after a bad one. A record's payload holds ids and bodies as their
// bytes, so the bad frame's own payload could hold what looks like a
// frame: a frame counts only when its checksum holds and its payload
// reads as a record (decodeRecord), which bytes inside a payload do not
// by chance. One planted there on purpose, in an id, makes a crash in
// the middle of that record's write refuse the folder as damaged: the
// start stops, and nothing is cut.
func wholeAfter(b []byte, from int64, seq uint64) (at int64, found uint64, ok bool) {
	for at = from; int64(len(b))-at >= frameHeader; at++ {
		if fr, ok := frameAt(b, at); ok && fr.seq > seq {
			if _, err := decodeRecord(fr.payload); err == nil {
				return at, fr.seq, true
			}
		}
	}
	return 0, 0, false
}

// keepTorn copies a torn tail aside, to path.torn-OFFSET, before it is
// cut: if it was not a torn write after all, the bytes are still there to
// look at.
func keepTorn(path string, at int64, tail []byte) error {
	name := fmt.Sprintf("%s.torn-%d", path, at)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(tail)
	serr := f.Sync()
	if err := errors.Join(werr, serr, f.Close()); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// appendFrame adds payload p, numbered seq, to buf as one frame.
func appendFrame(buf []byte, seq uint64, p []byte) []byte {
	var h [frameHeader]byte
	binary.LittleEndian.PutUint32(h[:], uint32(len(p)))
	binary.LittleEndian.PutUint64(h[8:], seq)
	binary.LittleEndian.PutUint32(h[4:], frameSum(h[:], p))
	return append(append(buf, h[:]...), p...)
}

// write appends framed records and syncs them to disk. When they would
// pass the room written ahead it writes more zeros first, past them by
// growBy, and the one sync covers both.
func (j *journal) write(frames []byte) error {
	if end := j.size + int64(len(frames)); end > j.alloc {
		ahead := j.ahead
		if ahead <= 0 {
			ahead = growBy
		}
		if err := j.grow(end + ahead); err != nil {
			return err
		}
	}
	if _, err := j.f.WriteAt(frames, j.size); err != nil {
		return err
	}
	if err := datasync(j.f); err != nil {
		return err
	}
	j.size += int64(len(frames))
	return nil
}

// grow writes zeros from the file's end to to.
func (j *journal) grow(to int64) error {
	zero := make([]byte, min(to-j.alloc, 1<<20))
	for j.alloc < to {
		n, err := j.f.WriteAt(zero[:min(int64(len(zero)), to-j.alloc)], j.alloc)
		j.alloc += int64(n)
		if err != nil {
			return err
		}
	}
	return nil
}

// reset empties the journal to its header, once a checkpoint holds all it
// said.
func (j *journal) reset() error {
	if err := j.f.Truncate(0); err != nil {
		return err
	}
	if _, err := j.f.WriteAt([]byte(journalMagic), 0); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	j.size, j.alloc = int64(len(journalMagic)), int64(len(journalMagic))
	return nil
}

func (j *journal) close() error {
	if j == nil || j.f == nil {
		return nil
	}
	err := j.f.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
