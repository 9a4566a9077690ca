package durable

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/wraithdev/wraith/twin/session"
)

// TestCheckpointCodecRoundTrip fills every field of a checkpoint, at
// every depth, with random values (nil and empty slices and maps, nil
// remembered answers among them), and reads it back equal. A field added
// to session's snapshot types and not to the codec fails here.
func TestCheckpointCodecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cases := []checkpointed{{}, {Snapshot: session.Snapshot{StateDoc: session.StateDoc{
		Counters: map[string]int64{}, FaultCounts: []session.RuleCount{}, Entities: []session.EntityDoc{},
		Idempotency: map[string]*session.Replay{"k": nil}, Generator: []byte{}, Attachment: []byte{},
	}}}}
	for range 200 {
		var ck checkpointed
		fill(reflect.ValueOf(&ck).Elem(), rng)
		cases = append(cases, ck)
	}
	if len(cases[2].Snapshot.Entities) == 0 || cases[2].Snapshot.Entities[0].Scope == "" {
		t.Fatalf("fill left the entities' fields empty: %+v", cases[2].Snapshot.StateDoc)
	}
	for i, want := range cases {
		enc := encodeCheckpoint(&want)
		have, err := decodeCheckpoint(enc)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !reflect.DeepEqual(want, have) {
			t.Fatalf("case %d: read back otherwise than written: a field of checkpointed or session.Snapshot that encodeCheckpoint and decodeCheckpoint do not carry?\nwant %+v\nhave %+v", i, want, have)
		}
		if again := encodeCheckpoint(&have); !bytes.Equal(enc, again) {
			t.Fatalf("case %d: the same checkpoint encodes to other bytes", i)
		}
	}
}

// fill sets v and everything in it to random values: every string,
// number and flag, one to three elements of each slice and map, and a
// pointer set or, one time in four, nil.
func fill(v reflect.Value, rng *rand.Rand) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), rng)
		}
	case reflect.String:
		b := make([]byte, rng.Intn(12))
		for i := range b {
			b[i] = byte(rng.Intn(256))
		}
		v.SetString(string(b))
	case reflect.Bool:
		v.SetBool(rng.Intn(2) == 1)
	case reflect.Int, reflect.Int64:
		v.SetInt(rng.Int63() - rng.Int63())
	case reflect.Uint64, reflect.Uint8:
		v.SetUint(rng.Uint64() & (1<<(8*v.Type().Size()) - 1))
	case reflect.Slice:
		if rng.Intn(8) == 0 {
			return // nil
		}
		n := rng.Intn(4)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			fill(v.Index(i), rng)
		}
	case reflect.Map:
		if rng.Intn(8) == 0 {
			return
		}
		v.Set(reflect.MakeMap(v.Type()))
		for range 1 + rng.Intn(3) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(k, rng)
			fill(e, rng)
			v.SetMapIndex(k, e)
		}
	case reflect.Pointer:
		if rng.Intn(4) == 0 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), rng)
	default:
		panic("fill: a field of kind " + v.Kind().String() + ": teach fill, and the checkpoint codec, to carry it")
	}
}

// TestCheckpointCodecRefusesDamage: a checkpoint with any byte flipped,
// or cut at any length, is refused with a reason, and nothing panics.
func TestCheckpointCodecRefusesDamage(t *testing.T) {
	ck := sampleCheckpoint()
	enc := encodeCheckpoint(&ck)
	for i := range enc {
		bad := bytes.Clone(enc)
		bad[i] ^= 0x10
		if _, err := decodeCheckpoint(bad); err == nil {
			t.Fatalf("byte %d flipped: read without an error", i)
		}
		if _, err := decodeCheckpoint(enc[:i]); err == nil {
			t.Fatalf("cut at %d of %d bytes: read without an error", i, len(enc))
		}
	}
	bad := bytes.Clone(enc)
	bad[len(bad)-1] ^= 0x10
	_, err := decodeCheckpoint(bad)
	if err == nil || !strings.Contains(err.Error(), "checksum does not hold") {
		t.Errorf("a flipped byte: want the checksum named, have %v", err)
	}
}

// TestCheckpointJSONStillReads: a checkpoint as state format 2 wrote it,
// JSON, reads as the binary one does.
func TestCheckpointJSONStillReads(t *testing.T) {
	ck := sampleCheckpoint()
	old, err := encodeJSON(&ck)
	if err != nil {
		t.Fatal(err)
	}
	have, err := decodeCheckpoint(old)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ck, have) {
		t.Errorf("a JSON checkpoint read otherwise than written:\nwant %+v\nhave %+v", ck, have)
	}
}

// TestDamagedCheckpointRefused: a state folder whose checkpoint was
// damaged on disk is refused at start, as a damaged journal is, and left
// as it was.
func TestDamagedCheckpointRefused(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{})
	write(t, create(t, ss, "a"), "")
	if err := ds.Close(); err != nil {
		t.Fatal(err)
	}
	rewriteCheckpoints(t, dir, func(v []byte) []byte {
		v = bytes.Clone(v)
		v[len(v)/2] ^= 0x01
		return v
	})
	_, err := Open(Options{Dir: dir, Twin: twinName, TwinDigest: twinDigest})
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("want ErrDamaged, have %v", err)
	}
	for _, w := range []string{`session "a"`, "checksum does not hold", "copy the folder aside"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("want %q in the error, have %v", w, err)
		}
	}
}

// rewriteCheckpoints replaces every checkpoint in dir's state.db by
// what fn makes of it.
func rewriteCheckpoints(tb testing.TB, dir string, fn func([]byte) []byte) {
	tb.Helper()
	db, err := openDB(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(sessionsBucket)
		vals := map[string][]byte{}
		b.ForEach(func(k, v []byte) error {
			vals[string(k)] = fn(v)
			return nil
		})
		for k, v := range vals {
			if err := b.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// asJSON is a binary checkpoint as state format 2 and before wrote it.
func asJSON(tb testing.TB) func([]byte) []byte {
	return func(v []byte) []byte {
		ck, err := decodeCheckpoint(v)
		if err != nil {
			tb.Fatal(err)
		}
		j, err := encodeJSON(&ck)
		if err != nil {
			tb.Fatal(err)
		}
		if !json.Valid(j) {
			tb.Fatal("not JSON")
		}
		return j
	}
}

func sampleCheckpoint() checkpointed {
	return checkpointed{Seq: 41, Provisioned: true, Snapshot: session.Snapshot{
		Format: 1, Twin: twinName, TwinDigest: twinDigest, Session: "a", Digest: "sha256:cc",
		Settings: session.SnapshotSettings{Fixture: "default", Seed: 7, ClockMode: "frozen", BaseEpoch: 1700000000, PIIVerbatim: []string{"email"}},
		StateDoc: session.StateDoc{
			ClockPos: 5, Generator: []byte{1, 2, 3}, Seq: 1<<32 + 2, Requests: 3,
			Counters: map[string]int64{"customer": 2}, FaultCounts: []session.RuleCount{{Matched: 2, Fired: 1}},
			Entities: []session.EntityDoc{
				{ID: "cus_1", Object: "customer", Body: json.RawMessage(`{"id":"cus_1","object":"customer","name":"<a & b>"}`), Created: 1700000000, Seq: 1<<32 + 1, Provenance: "handler"},
				{ID: "cus_2", Object: "customer", Body: json.RawMessage(`null`), Seq: 1<<32 + 2, Deleted: true},
			},
			Idempotency: map[string]*session.Replay{"key-1": {Fingerprint: strings.Repeat("ab", 32), Status: 200, Body: []byte(`{"id":"cus_1"}`), Route: "POST /v1/customers", Provenance: "handler"}},
		},
	}}
}

// TestRecordCodecRoundTrip: every operation of a journal record, with
// every field of the session's documents filled, reads back equal; and a
// record as state format 2 wrote it, JSON, reads as well.
func TestRecordCodecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := range 200 {
		rec := record{Op: recOps[i%len(recOps)]}
		fill(reflect.ValueOf(&rec.Provisioned).Elem(), rng)
		fill(reflect.ValueOf(&rec.Whole).Elem(), rng)
		fill(reflect.ValueOf(&rec.Delta).Elem(), rng)
		rec.Session = fmt.Sprint("s", i)
		p, err := encodeRecord(&rec)
		if err != nil {
			t.Fatal(err)
		}
		have, err := decodeRecord(p)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !reflect.DeepEqual(rec, have) {
			t.Fatalf("record %d read back otherwise than written: a field record or session's documents have that the codec does not carry?\nwant %+v\nhave %+v", i, rec, have)
		}
		for cut := range len(p) {
			if _, err := decodeRecord(p[:cut]); err == nil {
				t.Fatalf("record %d cut at %d of %d bytes: read without an error", i, cut, len(p))
			}
		}
	}
	ck := sampleCheckpoint()
	rec := record{Op: opDelta, Session: "a", Delta: &ck.Snapshot.StateDoc}
	j, err := encodeJSON(&rec)
	if err != nil {
		t.Fatal(err)
	}
	have, err := decodeRecord(j)
	if err != nil || !reflect.DeepEqual(rec, have) {
		t.Errorf("a JSON record: want %+v, have %+v (%v)", rec, have, err)
	}
	if _, err := encodeRecord(&record{Op: "rename"}); err == nil {
		t.Error("a record of an unknown operation encoded")
	}
}

// encodeJSON is how state format 2 and before wrote checkpoints and
// records: json.Marshal without HTML escaping, so that a body's bytes
// came back as they were.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// journalAsJSON rewrites the records of the journal at path as state
// format 2 wrote them, JSON, with their numbers.
func journalAsJSON(tb testing.TB, path string) {
	tb.Helper()
	raw := journalRecords(tb, path)
	frames, _ := readFrames(raw[len(journalMagic):])
	out := []byte(journalMagic)
	for _, f := range frames {
		rec, err := decodeRecord(f.payload)
		if err != nil {
			tb.Fatal(err)
		}
		j, err := encodeJSON(&rec)
		if err != nil {
			tb.Fatal(err)
		}
		out = appendFrame(out, f.seq, j)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// FuzzCheckpointDecode: whatever a checkpoint holds past its checksum,
// reading it ends in a checkpoint or an error, never a panic, and what
// reads is written back to bytes that read the same.
func FuzzCheckpointDecode(f *testing.F) {
	ck := sampleCheckpoint()
	f.Add(encodeCheckpoint(&ck)[len(ckMagic)+4:])
	f.Add(encodeCheckpoint(&checkpointed{})[len(ckMagic)+4:])
	f.Fuzz(func(t *testing.T, body []byte) {
		v := binary.LittleEndian.AppendUint32([]byte(ckMagic), crc32.Checksum(body, castagnoli))
		ck, err := decodeCheckpoint(append(v, body...))
		if err != nil {
			return
		}
		again, err := decodeCheckpoint(encodeCheckpoint(&ck))
		if err != nil {
			t.Fatalf("a checkpoint read from %d bytes does not read once written: %v", len(body), err)
		}
		if !reflect.DeepEqual(ck, again) {
			t.Fatalf("a checkpoint read from %d bytes reads otherwise once written", len(body))
		}
	})
}

// FuzzRecordDecode: whatever a journal frame holds, reading it as a
// record ends in a record or an error, never a panic, and what reads is
// written back to bytes that read the same.
func FuzzRecordDecode(f *testing.F) {
	ck := sampleCheckpoint()
	for _, rec := range []record{
		{Op: opDelta, Session: "a", Delta: &ck.Snapshot.StateDoc},
		{Op: opWhole, Session: "a", Provisioned: true, Whole: &ck.Snapshot},
		{Op: opDeleted, Session: "b"},
	} {
		p, err := encodeRecord(&rec)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) > 0 && p[0] == '{' {
			return // JSON: encoding/json's to read
		}
		rec, err := decodeRecord(p)
		if err != nil {
			return
		}
		q, err := encodeRecord(&rec)
		if err != nil {
			t.Fatalf("a record read from %d bytes does not write: %v", len(p), err)
		}
		again, err := decodeRecord(q)
		if err != nil || !reflect.DeepEqual(rec, again) {
			t.Fatalf("a record read from %d bytes reads otherwise once written (%v)", len(p), err)
		}
	})
}

// TestTornRecordHoldingAFrame: a record holds ids as their bytes, so a
// torn last record may hold what looks like a whole frame. It is cut as
// the torn tail it is, not taken for damage: a frame after a bad one
// counts only when its payload reads as a record.
func TestTornRecordHoldingAFrame(t *testing.T) {
	ck := sampleCheckpoint()
	first, err := encodeRecord(&record{Op: opDelta, Session: "a", Delta: &ck.Snapshot.StateDoc})
	if err != nil {
		t.Fatal(err)
	}
	planted := ck.Snapshot.StateDoc
	planted.Entities = []session.EntityDoc{{ID: string(appendFrame(nil, 1<<62, []byte("x"))), Object: "label", Body: []byte(`{}`), Provenance: "handler"}}
	second, err := encodeRecord(&record{Op: opDelta, Session: "a", Delta: &planted})
	if err != nil {
		t.Fatal(err)
	}
	raw := appendFrame(appendFrame([]byte(journalMagic), 1, first), 2, second)
	path := filepath.Join(t.TempDir(), journalFile)
	if err := os.WriteFile(path, raw[:len(raw)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	j, payloads, cutAt, _, err := openJournal(path)
	if err != nil {
		t.Fatalf("a torn record holding a frame was refused: %v", err)
	}
	j.close()
	if want := int64(len(journalMagic) + frameHeader + len(first)); len(payloads) != 1 || cutAt != want {
		t.Errorf("want the first record kept and the tail cut at %d, have %d records, cut at %d", want, len(payloads), cutAt)
	}
}
