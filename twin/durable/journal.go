package durable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// journalMagic opens every journal: the format, in a line a person can
// read with head -1.
const journalMagic = "wraith state journal 1\n"

// frameHeader is a record's payload length and the CRC-32C of its
// sequence number and payload, both little-endian uint32, then its
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

// journal is the append-only file of records. Only the committer writes
// it, after recovery has read it.
type journal struct {
	f    *os.File
	size int64
}

// openJournal opens (or makes) the journal at path and returns it with
// its whole records, in order. A torn tail (a frame cut
// short, or one whose CRC does not match: a write the process died in) is
// cut off; cutAt is its offset (-1 for none).
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
	if !bytes.HasPrefix(raw, []byte(journalMagic)) {
		f.Close()
		if len(raw) < len(journalMagic) && bytes.HasPrefix([]byte(journalMagic), raw) {
			// Died while writing the header of a new journal.
			j, err := reopenEmpty(path)
			return j, nil, 0, int64(len(raw)), err
		}
		return nil, nil, -1, 0, fmt.Errorf("%s does not start with %q: it is not a journal of this wraith version", path, journalMagic)
	}
	off := int64(len(journalMagic))
	records, good := readFrames(raw[off:])
	end := off + good
	cutAt, cutBytes = -1, 0
	if end < int64(len(raw)) {
		cutAt, cutBytes = end, int64(len(raw))-end
		if err := f.Truncate(end); err != nil {
			f.Close()
			return nil, nil, -1, 0, fmt.Errorf("cut the torn tail of %s at %d: %w", path, end, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, -1, 0, err
		}
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, -1, 0, err
	}
	j.size = end
	return j, records, cutAt, cutBytes, nil
}

func reopenEmpty(path string) (*journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_TRUNC, 0o600)
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
// take; what follows them is a torn tail.
func readFrames(b []byte) (frames []frame, good int64) {
	for {
		if int64(len(b))-good < frameHeader {
			return frames, good
		}
		h := b[good : good+frameHeader]
		n := binary.LittleEndian.Uint32(h)
		sum := binary.LittleEndian.Uint32(h[4:])
		if n == 0 || n > maxRecord || int64(len(b))-good-frameHeader < int64(n) {
			return frames, good
		}
		body := b[good+8 : good+frameHeader+int64(n)] // the sequence number and the payload
		if crc32.Checksum(body, castagnoli) != sum {
			return frames, good
		}
		frames = append(frames, frame{seq: binary.LittleEndian.Uint64(body), payload: body[8:]})
		good += frameHeader + int64(n)
	}
}

// appendFrame adds payload p, numbered seq, to buf as one frame.
func appendFrame(buf []byte, seq uint64, p []byte) []byte {
	var h [frameHeader]byte
	binary.LittleEndian.PutUint32(h[:], uint32(len(p)))
	binary.LittleEndian.PutUint64(h[8:], seq)
	crc := crc32.Update(crc32.Checksum(h[8:], castagnoli), castagnoli, p)
	binary.LittleEndian.PutUint32(h[4:], crc)
	return append(append(buf, h[:]...), p...)
}

// write appends framed records and syncs them to disk.
func (j *journal) write(frames []byte) error {
	if _, err := j.f.Write(frames); err != nil {
		return err
	}
	if err := datasync(j.f); err != nil {
		return err
	}
	j.size += int64(len(frames))
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
	if _, err := j.f.Seek(int64(len(journalMagic)), io.SeekStart); err != nil {
		return err
	}
	j.size = int64(len(journalMagic))
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
