package durable

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/wraithdev/wraith/twin/session"
)

// A checkpoint, a session whole in state.db, and a journal record are
// kept in a binary form of their own rather than as JSON. Reading the
// folder at start is mostly reading checkpoints, and JSON's decoder scans
// every entity's body twice (it checks a json.RawMessage, then skips past
// it): for 100,000 entities that was most of a restart. Writing a record
// is on every durable write's path, under its session's lock, and JSON's
// encoder scans each body again (it compacts a json.RawMessage). Here a
// body is a length and its bytes, so reading or writing one is a copy.
//
// A checkpoint is ckMagic, a CRC-32C (Castagnoli) of everything after it,
// then the fields of checkpointed in their declared order. A record is
// recBinary, its operation's index in recOps, the fields of record, then
// recEnd (the journal's frame carries its checksum). Each field is written as:
//
//	integers      uvarint (unsigned) or varint (signed)
//	bool          one byte, 0 or 1
//	string        uvarint length, bytes
//	[]byte, slice uvarint length+1, then its bytes or elements; 0 is nil
//	map           as a slice of key, value pairs, sorted by key
//	pointer       one byte, 0 for nil, 1 then the value
//
// A field added to any of these types must be added to both the writer
// and the reader; TestCheckpointCodecRoundTrip and TestRecordCodecRoundTrip
// fill every field and fail until it is. Checkpoints and records written
// as JSON (state format 2 and before) start with '{' and still read.
const ckMagic = "wck\x03"

// errCkShort is a checkpoint or record that ends inside a field.
var errCkShort = errors.New("the value ends inside a field")

// encodeCheckpoint is ck in its binary form.
func encodeCheckpoint(ck *checkpointed) []byte {
	w := ckWriter{b: make([]byte, len(ckMagic)+4, 64+snapshotSize(&ck.Snapshot))}
	copy(w.b, ckMagic)
	w.u(ck.Seq)
	w.bool(ck.Provisioned)
	w.snapshot(&ck.Snapshot)
	binary.LittleEndian.PutUint32(w.b[len(ckMagic):], crc32.Checksum(w.b[len(ckMagic)+4:], castagnoli))
	return w.b
}

// recBinary is the first byte of a journal record in binary form: the
// record's fields in the same encoding as a checkpoint's (the frame
// carries the checksum). A record as state format 2 wrote it is JSON,
// and starts with '{'.
const recBinary = 0x02

// Record operations in binary form.
var recOps = [...]string{opWhole, opDelta, opProvisioned, opDeleted}

// appendRecord appends rec in binary form to b.
func appendRecord(b []byte, rec *record) ([]byte, error) {
	op := slices.Index(recOps[:], rec.Op)
	if op < 0 {
		return b, fmt.Errorf("record operation %q", rec.Op)
	}
	w := ckWriter{b: append(b, recBinary, byte(op))}
	w.str(rec.Session)
	w.bool(rec.Provisioned)
	w.bool(rec.Whole != nil)
	if rec.Whole != nil {
		w.snapshot(rec.Whole)
	}
	w.bool(rec.Delta != nil)
	if rec.Delta != nil {
		w.stateDoc(rec.Delta)
	}
	return append(w.b, recEnd), nil
}

// recEnd ends every binary record. The journal is written ahead with
// zeros, so a record whose last bytes were zeros, cut short there by a
// crash, would read whole from the zeros after it: a record's last byte
// is never zero.
const recEnd = 0xff

// encodeRecord is rec in binary form.
func encodeRecord(rec *record) ([]byte, error) {
	n := 64 + len(rec.Session)
	if rec.Whole != nil {
		n += snapshotSize(rec.Whole)
	}
	if rec.Delta != nil {
		n += stateDocSize(rec.Delta)
	}
	return appendRecord(make([]byte, 0, n), rec)
}

// decodeRecord reads a journal record in either form (binary, or JSON as
// state format 2 wrote it); Seq is the frame's to set.
func decodeRecord(p []byte) (record, error) {
	var rec record
	if len(p) > 0 && p[0] == '{' {
		err := json.Unmarshal(p, &rec)
		return rec, err
	}
	if len(p) < 2 || p[0] != recBinary || int(p[1]) >= len(recOps) {
		return rec, errors.New("it is neither JSON nor a binary record")
	}
	rec.Op = recOps[p[1]]
	r := ckReader{b: p[2:], interned: map[string]string{}}
	rec.Session = r.str()
	rec.Provisioned = r.bool()
	if r.bool() {
		rec.Whole = new(session.Snapshot)
		r.snapshot(rec.Whole)
	}
	if r.bool() {
		rec.Delta = new(session.StateDoc)
		r.stateDoc(rec.Delta)
	}
	if r.err == nil && (r.off >= len(r.b) || r.b[r.off] != recEnd) {
		r.err = errCkShort
	}
	r.off++
	if err := r.end(2); err != nil {
		return record{}, err
	}
	return rec, nil
}

func (w *ckWriter) snapshot(s *session.Snapshot) {
	w.i(int64(s.Format))
	w.str(s.Twin)
	w.str(s.TwinDigest)
	w.str(s.Session)
	set := &s.Settings
	w.str(set.Fixture)
	w.u(set.Seed)
	w.str(set.ClockMode)
	w.i(set.BaseEpoch)
	w.str(set.ClockStep)
	w.str(set.FaultProfile)
	w.str(set.RateLimit)
	w.strs(set.PIIVerbatim)
	w.str(s.Digest)
	w.stateDoc(&s.StateDoc)
}

func (w *ckWriter) stateDoc(d *session.StateDoc) {
	w.i(d.ClockPos)
	w.bytes(d.Generator)
	w.u(d.Seq)
	w.u(d.Requests)
	w.count(d.Counters == nil, len(d.Counters))
	var buf [8]string
	for _, k := range sortedKeys(buf[:0], d.Counters) {
		w.str(k)
		w.i(d.Counters[k])
	}
	w.i(d.RateEnd)
	w.i(int64(d.RateCount))
	w.count(d.FaultCounts == nil, len(d.FaultCounts))
	for _, c := range d.FaultCounts {
		w.u(c.Matched)
		w.u(c.Fired)
	}
	w.count(d.Entities == nil, len(d.Entities))
	for i := range d.Entities {
		e := &d.Entities[i]
		w.str(e.ID)
		w.str(e.Object)
		w.bytes(e.Body)
		w.i(e.Created)
		w.u(e.Seq)
		w.str(e.Provenance)
		w.str(e.Exchange)
		w.bool(e.Deleted)
		w.str(e.Scope)
	}
	w.count(d.Idempotency == nil, len(d.Idempotency))
	for _, k := range sortedKeys(buf[:0], d.Idempotency) {
		w.str(k)
		r := d.Idempotency[k]
		w.bool(r != nil)
		if r == nil {
			continue
		}
		w.str(r.Fingerprint)
		w.i(int64(r.Status))
		w.bytes(r.Body)
		w.str(r.Route)
		w.str(r.Provenance)
	}
	w.bytes(d.Attachment)
}

// sortedKeys appends m's keys to keys, sorted: a write's record has a
// counter or two and a remembered answer or none, and their keys go in
// the caller's buffer rather than a new slice.
func sortedKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// snapshotSize is about the size of s's encoding, so that the buffer
// is allocated once: the bodies, and a bound on everything else.
func snapshotSize(s *session.Snapshot) int {
	return 256 + len(s.Twin) + len(s.TwinDigest) + len(s.Session) + len(s.Digest) + stateDocSize(&s.StateDoc)
}

func stateDocSize(d *session.StateDoc) int {
	n := 128 + len(d.Generator) + len(d.Attachment) + 24*len(d.FaultCounts)
	for k := range d.Counters {
		n += len(k) + 12
	}
	for i := range d.Entities {
		e := &d.Entities[i]
		n += len(e.ID) + len(e.Object) + len(e.Body) + len(e.Provenance) + len(e.Exchange) + len(e.Scope) + 40
	}
	for k, r := range d.Idempotency {
		n += len(k) + 16
		if r != nil {
			n += len(r.Fingerprint) + len(r.Body) + len(r.Route) + len(r.Provenance) + 16
		}
	}
	return n
}

// decodeCheckpoint reads a checkpoint in either form: binary, or JSON as
// state format 2 and before wrote it. Nothing of the result refers to v,
// which bbolt owns.
func decodeCheckpoint(v []byte) (checkpointed, error) {
	var ck checkpointed
	if len(v) > 0 && v[0] == '{' {
		err := json.Unmarshal(v, &ck)
		return ck, err
	}
	if !bytes.HasPrefix(v, []byte(ckMagic)) || len(v) < len(ckMagic)+4 {
		return ck, fmt.Errorf("it does not start with the checkpoint mark %q", ckMagic)
	}
	body := v[len(ckMagic)+4:]
	if want, have := binary.LittleEndian.Uint32(v[len(ckMagic):]), crc32.Checksum(body, castagnoli); want != have {
		return ck, fmt.Errorf("its checksum does not hold (written %08x, read %08x): the file was damaged", want, have)
	}
	r := ckReader{b: body, interned: map[string]string{}}
	ck.Seq = r.u()
	ck.Provisioned = r.bool()
	r.snapshot(&ck.Snapshot)
	if err := r.end(len(ckMagic) + 4); err != nil {
		return checkpointed{}, err
	}
	return ck, nil
}

func (r *ckReader) snapshot(s *session.Snapshot) {
	s.Format = int(r.i())
	s.Twin = r.intern()
	s.TwinDigest = r.intern()
	s.Session = r.str()
	set := &s.Settings
	set.Fixture = r.str()
	set.Seed = r.u()
	set.ClockMode = r.str()
	set.BaseEpoch = r.i()
	set.ClockStep = r.str()
	set.FaultProfile = r.str()
	set.RateLimit = r.str()
	set.PIIVerbatim = r.strs()
	s.Digest = r.str()
	r.stateDoc(&s.StateDoc)
}

func (r *ckReader) stateDoc(d *session.StateDoc) {
	d.ClockPos = r.i()
	d.Generator = r.bytes()
	d.Seq = r.u()
	d.Requests = r.u()
	if n, ok := r.count(2); ok {
		d.Counters = make(map[string]int64, n)
		for range n {
			k := r.str()
			d.Counters[k] = r.i()
		}
	}
	d.RateEnd = r.i()
	d.RateCount = int(r.i())
	if n, ok := r.count(2); ok {
		d.FaultCounts = make([]session.RuleCount, n)
		for i := range d.FaultCounts {
			d.FaultCounts[i] = session.RuleCount{Matched: r.u(), Fired: r.u()}
		}
	}
	if n, ok := r.count(9); ok {
		d.Entities = make([]session.EntityDoc, n)
		for i := range d.Entities {
			e := &d.Entities[i]
			e.ID = r.str()
			e.Object = r.intern()
			e.Body = r.bytes()
			e.Created = r.i()
			e.Seq = r.u()
			e.Provenance = r.intern()
			e.Exchange = r.str()
			e.Deleted = r.bool()
			e.Scope = r.intern()
		}
	}
	if n, ok := r.count(2); ok {
		d.Idempotency = make(map[string]*session.Replay, n)
		for range n {
			k := r.str()
			if !r.bool() {
				d.Idempotency[k] = nil
				continue
			}
			d.Idempotency[k] = &session.Replay{Fingerprint: r.str(), Status: int(r.i()), Body: r.bytes(), Route: r.str(), Provenance: r.intern()}
		}
	}
	d.Attachment = r.bytes()
}

// end reports the first problem reading the fields, or bytes left after
// the last; at is where r's bytes start in the value, for the message.
func (r *ckReader) end(at int) error {
	switch {
	case r.err != nil:
		return fmt.Errorf("%w, at byte %d", r.err, at+r.off)
	case r.off != len(r.b):
		return fmt.Errorf("%d bytes follow the last field", len(r.b)-r.off)
	}
	return nil
}

type ckWriter struct{ b []byte }

func (w *ckWriter) u(x uint64) { w.b = binary.AppendUvarint(w.b, x) }
func (w *ckWriter) i(x int64)  { w.b = binary.AppendVarint(w.b, x) }

func (w *ckWriter) bool(x bool) {
	if x {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *ckWriter) str(s string) {
	w.u(uint64(len(s)))
	w.b = append(w.b, s...)
}

// count writes a slice's or map's length, or 0 for nil.
func (w *ckWriter) count(isNil bool, n int) {
	if isNil {
		w.u(0)
		return
	}
	w.u(uint64(n) + 1)
}

func (w *ckWriter) bytes(b []byte) {
	w.count(b == nil, len(b))
	w.b = append(w.b, b...)
}

func (w *ckWriter) strs(ss []string) {
	w.count(ss == nil, len(ss))
	for _, s := range ss {
		w.str(s)
	}
}

// ckReader reads fields off b. The first field that runs past the end
// sets err, and every read after it returns a zero value.
type ckReader struct {
	b        []byte
	off      int
	err      error
	interned map[string]string // the few distinct resource names, provenances and scopes, held once
}

func (r *ckReader) u() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = errCkShort
		return 0
	}
	r.off += n
	return x
}

func (r *ckReader) i() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.err = errCkShort
		return 0
	}
	r.off += n
	return x
}

func (r *ckReader) bool() bool {
	if r.err != nil {
		return false
	}
	if r.off >= len(r.b) {
		r.err = errCkShort
		return false
	}
	if r.b[r.off] > 1 {
		r.err = fmt.Errorf("a flag is %d, neither 0 nor 1", r.b[r.off])
		return false
	}
	r.off++
	return r.b[r.off-1] == 1
}

// raw is the next n bytes, where n is read first.
func (r *ckReader) raw(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.err = errCkShort
		return nil
	}
	b := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return b
}

func (r *ckReader) str() string { return string(r.raw(r.u())) }

// intern is str for a value many entities share.
func (r *ckReader) intern() string {
	b := r.raw(r.u())
	if s, ok := r.interned[string(b)]; ok {
		return s
	}
	s := string(b)
	r.interned[s] = s
	return s
}

// count reads a slice's or map's length; ok is false for nil. Each
// element takes at least least bytes, so a length the rest of the value
// cannot hold is refused before anything is allocated for it.
func (r *ckReader) count(least int) (n int, ok bool) {
	c := r.u()
	if c == 0 || r.err != nil {
		return 0, false
	}
	if c-1 > uint64(len(r.b)-r.off)/uint64(least) {
		r.err = errCkShort
		return 0, false
	}
	return int(c - 1), true
}

func (r *ckReader) bytes() []byte {
	n, ok := r.count(1)
	if !ok {
		return nil
	}
	return bytes.Clone(r.raw(uint64(n)))
}

func (r *ckReader) strs() []string {
	n, ok := r.count(1)
	if !ok {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = r.str()
	}
	return ss
}
