package durable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

const (
	twinName   = "checkout"
	twinDigest = "sha256:aaaa"
)

var testSettings = session.Settings{Seed: 7, Clock: session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}}

// open opens dir as the state folder of a session store.
func open(tb testing.TB, dir string, o Options) (*Store, *session.Store) {
	tb.Helper()
	o.Dir, o.Twin = dir, twinName
	if o.TwinDigest == "" {
		o.TwinDigest = twinDigest
	}
	ds, err := Open(o)
	if err != nil {
		tb.Fatal(err)
	}
	ss := session.NewStoreWith(session.StoreOptions{Persister: ds})
	err = ds.Quiet(func() error {
		for _, r := range ds.Recovered() {
			set, perr := r.Snapshot.Check(twinName, twinDigest)
			if perr != nil {
				return perr
			}
			s, err := ss.Restore(r.Snapshot.Session, set, nil, &r.Snapshot.StateDoc)
			if err != nil {
				return err
			}
			s.SetProvisioned(r.Provisioned)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return ds, ss
}

// crash leaves the folder as a killed process would: what was committed
// is on disk, nothing is checkpointed at the end, and the lock is gone.
func (st *Store) crash() {
	st.mu.Lock()
	st.closing = true
	st.mu.Unlock()
	select {
	case st.kick <- struct{}{}:
	default:
	}
	<-st.done
	if st.ckptDone != nil {
		<-st.ckptDone // a checkpoint under way may stop anywhere; the tests that need one stopped halfway make it so
	}
	st.j.close()
	st.db.Close()
}

func create(tb testing.TB, ss *session.Store, name string) *session.Session {
	tb.Helper()
	s, _, err := ss.GetOrCreate(name, func() *session.Session { return session.New(name, testSettings, nil, false) })
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// write creates a customer in s, remembering the answer under key when
// key is not empty, and returns its id.
func write(tb testing.TB, s *session.Session, key string) string {
	tb.Helper()
	var id string
	err := s.Do(func(st *session.State) {
		id = st.NewID("cus_", 14)
		st.Next("customers")
		e := &world.Entity{ID: id, Resource: "customer", Seq: st.NextSeq(), Provenance: world.Handler}
		e.SetBody([]byte(`{"id":"` + id + `","object":"customer"}`))
		st.Put(e)
		if key != "" {
			st.Remember(key, &session.Replay{Fingerprint: strings.Repeat("ab", 32), Status: 200, Body: []byte(`{"id":"` + id + `"}`), Provenance: "handler"})
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// world is every session of ss as JSON: what recovery must bring back.
func worldOf(tb testing.TB, ss *session.Store) map[string]string {
	tb.Helper()
	out := map[string]string{}
	for _, s := range ss.All() {
		doc, err := session.SnapshotOf(s, twinName, twinDigest)
		if err != nil {
			tb.Fatal(err)
		}
		_, prov := s.Settings()
		b, _ := json.Marshal(doc)
		out[s.Name()] = fmt.Sprintf("provisioned=%v %s", prov, b)
	}
	return out
}

func sameWorld(tb testing.TB, want, have map[string]string) {
	tb.Helper()
	if len(want) != len(have) {
		tb.Errorf("want %d sessions, have %d", len(want), len(have))
	}
	for name, w := range want {
		if h := have[name]; h != w {
			tb.Errorf("session %q:\nwant %s\nhave %s", name, w, h)
		}
	}
}

// TestRecoverExact: every kind of change survives a crash, and the
// sessions come back byte for byte as snapshots see them: entities, ids
// to come, counters, clock, idempotency cache, provisioning.
func TestRecoverExact(t *testing.T) {
	for _, tc := range []struct {
		name       string
		checkpoint int64
	}{
		{"journal only", 0},
		{"checkpointed often", 2 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ds, ss := open(t, dir, Options{CheckpointBytes: tc.checkpoint})
			a := create(t, ss, "a")
			for i := range 20 {
				write(t, a, fmt.Sprintf("key-%d", i%5))
			}
			a.Do(func(st *session.State) { st.Advance(3600) })
			a.MarkProvisioned()
			b := create(t, ss, "b")
			write(t, b, "")
			ss.Delete("b")
			c := create(t, ss, "c")
			write(t, c, "k")
			c.Reset()
			if _, err := ss.Fork(context.Background(), a, "d"); err != nil {
				t.Fatal(err)
			}
			d := ss.Get("d")
			write(t, d, "")
			d.Do(func(st *session.State) { st.Delete(st.Changed("customer")[0]) })
			b = create(t, ss, "b") // a name deleted and made again
			write(t, b, "")
			want := worldOf(t, ss)
			ds.crash()

			ds2, ss2 := open(t, dir, Options{CheckpointBytes: tc.checkpoint})
			defer ds2.Close()
			sameWorld(t, want, worldOf(t, ss2))
			if rep := ds2.Report(); rep.Sessions != 4 || rep.CutAt != -1 {
				t.Errorf("report: want 4 sessions and no cut, have %+v", rep)
			}
			// The next id after recovery is the one the first process
			// would have handed out.
			next := write(t, ss2.Get("a"), "")
			var first string
			a.Do(func(st *session.State) { first = st.NewID("cus_", 14) }) // refused by the crashed store, made in memory all the same
			if first != next {
				t.Errorf("next id: want %s (the first process's), have %s", first, next)
			}
		})
	}
}

// TestCloseCheckpoints: a clean stop leaves the journal empty, and the
// sessions in the checkpoint.
func TestCloseCheckpoints(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{})
	write(t, create(t, ss, "a"), "k")
	want := worldOf(t, ss)
	if err := ds.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, journalFile)); err != nil || fi.Size() != int64(len(journalMagic)) {
		t.Errorf("journal after Close: want %d bytes (its header), have %v %v", len(journalMagic), fi.Size(), err)
	}
	ds2, ss2 := open(t, dir, Options{})
	defer ds2.Close()
	sameWorld(t, want, worldOf(t, ss2))
}

// TestTornTail cuts the journal at every byte offset of its last record:
// each time the record is cut off and reported, and the sessions are as
// they were before that write; cut at its start, nothing is reported.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{})
	a := create(t, ss, "a")
	write(t, a, "")
	before := worldOf(t, ss)
	write(t, a, "k")
	ds.crash()
	raw := journalRecords(t, filepath.Join(dir, journalFile))
	recs, good := readFrames(raw[len(journalMagic):])
	if int(good)+len(journalMagic) != len(raw) || len(recs) < 2 {
		t.Fatalf("journal: want whole records only, have %d records in %d of %d bytes", len(recs), good, len(raw))
	}
	last := int64(len(raw) - frameHeader - len(recs[len(recs)-1].payload))
	db, err := os.ReadFile(filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	// The journal's reader at every offset of the last record; the whole
	// recovery at its start, inside its frame header, inside its payload
	// and one byte short of its end.
	// Each cut also with the zeros the journal is written ahead with
	// after it: what a record cut short in that room leaves.
	jdir := t.TempDir()
	jpath := filepath.Join(jdir, journalFile)
	for _, pad := range []int64{0, 4096} {
		for cut := last; cut < int64(len(raw)); cut++ {
			os.WriteFile(jpath, append(append([]byte(nil), raw[:cut]...), make([]byte, pad)...), 0o600)
			j, payloads, cutAt, cutBytes, err := openJournal(jpath)
			if err != nil {
				t.Fatal(err)
			}
			j.close()
			wantCut, wantSize := last, last
			if cut == last {
				wantCut, wantSize = -1, last+pad // nothing torn: the zeros are room, kept
			}
			if cutAt != wantCut || (wantCut >= 0 && cutBytes != cut-last+pad) || len(payloads) != len(recs)-1 {
				t.Errorf("cut at %d, %d zeros after: want %d records and the tail cut at %d (%d bytes), have %d records, cut at %d (%d bytes)", cut, pad, len(recs)-1, wantCut, cut-last+pad, len(payloads), cutAt, cutBytes)
			}
			if fi, _ := os.Stat(jpath); fi.Size() != wantSize {
				t.Errorf("cut at %d, %d zeros after: want the journal at %d bytes, have %d", cut, pad, wantSize, fi.Size())
			}
		}
	}
	for _, cut := range []int64{last, last + 3, last + frameHeader + 10, int64(len(raw)) - 1} {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, dbFile), db, 0o600)
		os.WriteFile(filepath.Join(d, journalFile), raw[:cut], 0o600)
		ds, ss := open(t, d, Options{})
		wantCut := last
		if cut == last {
			wantCut = -1
		}
		if rep := ds.Report(); rep.CutAt != wantCut {
			t.Errorf("cut at %d: want the tail cut at %d, have %+v", cut, wantCut, rep)
		}
		have := worldOf(t, ss)
		ds.Close()
		if have["a"] != before["a"] {
			t.Errorf("cut at %d: want the session as before its last write\nwant %s\nhave %s", cut, before["a"], have["a"])
		}
	}
	// A flipped byte in the last record is a torn tail too.
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, dbFile), db, 0o600)
	bad := append([]byte(nil), raw...)
	bad[len(bad)-2] ^= 0xff
	os.WriteFile(filepath.Join(d, journalFile), bad, 0o600)
	ds2, ss2 := open(t, d, Options{})
	defer ds2.Close()
	if rep := ds2.Report(); rep.CutAt != last {
		t.Errorf("flipped byte: want the last record cut at %d, have %+v", last, rep)
	}
	sameWorld(t, before, worldOf(t, ss2))
}

// TestRefused: a folder of another twin digest or format, or one another
// process holds, is refused with what to do.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{})
	write(t, create(t, ss, "a"), "")
	for _, tc := range []struct {
		name  string
		o     Options
		want  []string
		isErr error
	}{
		{"held by another process", Options{Dir: dir, Twin: twinName, TwinDigest: twinDigest}, []string{"held by another process", "another --state-dir"}, ErrLocked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.o)
			if err == nil || !errors.Is(err, tc.isErr) {
				t.Fatalf("want %v, have %v", tc.isErr, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("want %q in the error, have %v", w, err)
				}
			}
		})
	}
	ds.Close()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		o     Options
		want  []string
	}{
		{"another twin digest", nil, Options{Twin: "billing", TwinDigest: "sha256:bbbb"},
			[]string{"twin checkout sha256:aaaa", "serves billing sha256:bbbb", "another --state-dir"}},
		{"another format", func(t *testing.T, dir string) {
			ds, err := Open(Options{Dir: dir, Twin: twinName, TwinDigest: twinDigest})
			if err != nil {
				t.Fatal(err)
			}
			ds.crash()
			writeHeaderFile(t, dir, header{Format: Format + 1, Twin: twinName, TwinDigest: twinDigest})
		}, Options{Twin: twinName, TwinDigest: twinDigest}, []string{fmt.Sprintf("state format %d", Format+1), fmt.Sprintf("reads format %d", Format)}},
		{"not a journal", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, journalFile), []byte("something else entirely\n"), 0o600)
		}, Options{Twin: twinName, TwinDigest: twinDigest}, []string{"not a journal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := dir
			if tc.setup != nil {
				d = t.TempDir()
				tc.setup(t, d)
			}
			tc.o.Dir = d
			_, err := Open(tc.o)
			if err == nil {
				t.Fatal("want an error, have none")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("want %q in the error, have %v", w, err)
				}
			}
		})
	}
}

func writeHeaderFile(tb testing.TB, dir string, h header) {
	tb.Helper()
	db, err := openDB(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if err := putHeader(db, h); err != nil {
		tb.Fatal(err)
	}
}

// TestCheckpointBoundsFolder: many overwrites of one entity leave a
// folder the size of the live data, not of the history: the journal is
// checkpointed whenever it passes its bound.
func TestCheckpointBoundsFolder(t *testing.T) {
	const bound = 16 << 10
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{CheckpointBytes: bound})
	a := create(t, ss, "a")
	for range 800 { // about 250 KB of records
		a.Do(func(st *session.State) {
			e := &world.Entity{ID: "cus_1", Resource: "customer", Seq: st.NextSeq(), Provenance: world.Handler}
			e.SetBody([]byte(`{"id":"cus_1","object":"customer","n":` + fmt.Sprint(st.Requests()) + `}`))
			st.Put(e)
		})
	}
	want := worldOf(t, ss)
	ds.crash()
	j, _ := os.Stat(filepath.Join(dir, journalFile))
	db, _ := os.Stat(filepath.Join(dir, dbFile))
	if j.Size() > bound+4<<10 || db.Size() > 128<<10 {
		t.Errorf("after 800 overwrites of one entity: want a journal under %d bytes and a state.db under 128 KiB, have %d and %d", bound+4<<10, j.Size(), db.Size())
	}
	ds2, ss2 := open(t, dir, Options{})
	defer ds2.Close()
	sameWorld(t, want, worldOf(t, ss2))
}

// TestConcurrentWriters: writes of many goroutines to many sessions, all
// acknowledged, all back after a crash.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{CheckpointBytes: 256 << 10})
	var wg sync.WaitGroup
	for g := range 16 {
		s := create(t, ss, fmt.Sprintf("s%d", g%4))
		wg.Go(func() {
			for range 50 {
				write(t, s, "")
			}
		})
	}
	wg.Wait()
	want := worldOf(t, ss)
	ds.crash()
	ds2, ss2 := open(t, dir, Options{})
	defer ds2.Close()
	sameWorld(t, want, worldOf(t, ss2))
}

// TestWriteFailure: once the journal cannot be written, the write that
// failed and every later one return an error wrapping ErrNotDurable,
// saying what happened and what to do; the session is still served from
// memory.
func TestWriteFailure(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{})
	a := create(t, ss, "a")
	write(t, a, "")
	ds.j.f.Close() // the disk goes away under the twin
	for i := range 2 {
		err := a.Do(func(st *session.State) {
			e := &world.Entity{ID: st.NewID("cus_", 14), Resource: "customer", Seq: st.NextSeq(), Provenance: world.Handler}
			e.SetBody([]byte(`{"id":"` + e.ID + `","object":"customer"}`))
			st.Put(e)
		})
		if !errors.Is(err, session.ErrNotDurable) || !strings.Contains(err.Error(), "restarted") {
			t.Errorf("write %d after the failure: want ErrNotDurable saying to restart, have %v", i, err)
		}
	}
	if _, _, err := ss.GetOrCreate("b", func() *session.Session { return session.New("b", testSettings, nil, false) }); !errors.Is(err, session.ErrNotDurable) {
		t.Errorf("a new session after the failure: want ErrNotDurable, have %v", err)
	}
	if n := a.Entities(); n != 3 {
		t.Errorf("in memory: want 3 entities, have %d", n)
	}
	ds.Close() // returns at once, and keeps the refused writes out of the checkpoint
	ds2, ss2 := open(t, dir, Options{})
	defer ds2.Close()
	if have := ss2.Get("a").Entities(); have != 1 {
		t.Errorf("after a restart: want the one entity written before the failure, have %d", have)
	}
}

// TestLateWriteOfDeletedSession: a write that reaches a session after it
// was deleted (its request was in flight) is not recovered into the
// session made since under the same name.
func TestLateWriteOfDeletedSession(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{})
	old := create(t, ss, "a")
	write(t, old, "")
	ss.Delete("a")
	write(t, create(t, ss, "a"), "")
	want := worldOf(t, ss)
	write(t, old, "late") // the deleted session, still in a request's hands
	ds.crash()
	ds2, ss2 := open(t, dir, Options{})
	defer ds2.Close()
	sameWorld(t, want, worldOf(t, ss2))
}

// TestBodiesVerbatim: a body holding < & > comes back from the journal
// and from a checkpoint with the same bytes it was written with.
func TestBodiesVerbatim(t *testing.T) {
	const body = `{"id":"cus_1","object":"customer","note":"<b>&</b>"}`
	for _, tc := range []struct {
		name  string
		close func(*Store) // a crash replays the journal; a clean stop reads the checkpoint
	}{
		{"journal", (*Store).crash},
		{"checkpoint", func(ds *Store) { ds.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ds, ss := open(t, dir, Options{})
			a := create(t, ss, "a")
			if err := a.Do(func(st *session.State) {
				e := &world.Entity{ID: "cus_1", Resource: "customer", Seq: st.NextSeq(), Provenance: world.Handler}
				e.SetBody([]byte(body))
				st.Put(e)
			}); err != nil {
				t.Fatal(err)
			}
			tc.close(ds)
			ds2, ss2 := open(t, dir, Options{})
			defer ds2.Close()
			var have string
			ss2.Get("a").Do(func(st *session.State) { have = string(st.Get("cus_1").Body()) })
			if have != body {
				t.Errorf("want %s, have %s", body, have)
			}
		})
	}
}

// TestDamagedRefused: a record damaged in the middle of the journal (a
// flipped byte, as bad media gives) is not taken for a torn tail: the
// folder is refused, naming the offset and what to do, and left as it
// was; cut there, it would lose the acknowledged records after it. A
// torn tail, cut, is first copied aside.
func TestDamagedRefused(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{})
	a := create(t, ss, "a")
	for range 10 {
		write(t, a, "")
	}
	ds.crash()
	jpath := filepath.Join(dir, journalFile)
	raw := journalRecords(t, jpath)
	recs, _ := readFrames(raw[len(journalMagic):])
	third := int64(len(journalMagic))
	for _, r := range recs[:2] {
		third += frameHeader + int64(len(r.payload))
	}
	bad := append([]byte(nil), raw...)
	bad[third+frameHeader+20] ^= 0x01
	os.WriteFile(jpath, bad, 0o600)
	_, err := Open(Options{Dir: dir, Twin: twinName, TwinDigest: twinDigest})
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("want ErrDamaged, have %v", err)
	}
	for _, w := range []string{fmt.Sprintf("offset %d", third), "copy the folder aside", "another --state-dir"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("want %q in the error, have %v", w, err)
		}
	}
	if have, _ := os.ReadFile(jpath); string(have) != string(bad) {
		t.Errorf("want the refused journal untouched (%d bytes), have %d bytes", len(bad), len(have))
	}

	// The same byte flipped in the last record is a torn tail: cut, and
	// kept beside the journal.
	last := int64(len(raw) - frameHeader - len(recs[len(recs)-1].payload))
	bad = append(bad[:0], raw...)
	bad[len(bad)-2] ^= 0x01
	os.WriteFile(jpath, bad, 0o600)
	ds2, _ := open(t, dir, Options{})
	ds2.Close()
	kept, err := os.ReadFile(fmt.Sprintf("%s.torn-%d", jpath, last))
	if err != nil || string(kept) != string(bad[last:]) {
		t.Errorf("want the cut tail's %d bytes kept aside, have %d (%v)", len(bad)-int(last), len(kept), err)
	}
}

// journalRecords reads the journal at path without the zeros it is
// written ahead with, failing unless what follows its records is zeros.
func journalRecords(tb testing.TB, path string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	_, good := readFrames(raw[len(journalMagic):])
	end := len(journalMagic) + int(good)
	if !zeros(raw[end:]) {
		tb.Fatalf("%s: want whole records, then zeros; have %d bytes of records and %d more that are not all zero", path, end, len(raw)-end)
	}
	return raw[:end]
}

// TestJournalFormat1: a format 1 journal that a clean stop emptied is
// taken; one holding records, whose checksums this version reads
// otherwise, is refused, saying what to do.
func TestJournalFormat1(t *testing.T) {
	for _, tc := range []struct {
		name, journal string
		want          string // "" for taken
	}{
		{"emptied", journalMagicV1, ""},
		{"with records", journalMagicV1 + "\x05\x00\x00\x00record", "stop it cleanly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ds, _ := open(t, dir, Options{})
			ds.Close()
			os.WriteFile(filepath.Join(dir, journalFile), []byte(tc.journal), 0o600)
			ds, err := Open(Options{Dir: dir, Twin: twinName, TwinDigest: twinDigest})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want the folder taken, have %v", err)
			case tc.want == "":
				ds.Close()
			case err == nil || !strings.Contains(err.Error(), tc.want):
				t.Errorf("want an error saying %q, have %v", tc.want, err)
			}
		})
	}
}

// TestCaptureFailure: a change whose record cannot be made (here, past
// the record bound) fails the store: it and every later write are
// refused. Its delta was taken from the session, so a later record
// acknowledged would replay into a state that never was.
func TestCaptureFailure(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{})
	a := create(t, ss, "a")
	write(t, a, "")
	ds.maxRecord = 1 << 10
	put := func(body string) error {
		return a.Do(func(st *session.State) {
			e := &world.Entity{ID: st.NewID("cus_", 14), Resource: "customer", Seq: st.NextSeq(), Provenance: world.Handler}
			e.SetBody([]byte(`{"id":"` + e.ID + `","pad":"` + body + `"}`))
			st.Put(e)
		})
	}
	if err := put(strings.Repeat("p", 2<<10)); !errors.Is(err, session.ErrNotDurable) {
		t.Fatalf("a record past the bound: want ErrNotDurable, have %v", err)
	}
	if err := put("small"); !errors.Is(err, session.ErrNotDurable) {
		t.Errorf("a write after a change that could not be recorded: want ErrNotDurable, have %v", err)
	}
	ds.crash()
	ds2, ss2 := open(t, dir, Options{})
	defer ds2.Close()
	if have := ss2.Get("a").Entities(); have != 1 {
		t.Errorf("after a restart: want the one entity recorded before the failure, have %d", have)
	}
}
