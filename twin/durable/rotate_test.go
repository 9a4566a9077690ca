package durable

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestCheckpointBesideWrites: once the journal passes its bound, writes go
// on being answered while the checkpoint of the retired journal is held
// at each of its steps, and a crash at that step (the folder copied as it
// is) recovers every session exactly, from the checkpoint, journal.old and
// the new journal together.
func TestCheckpointBesideWrites(t *testing.T) {
	for _, step := range []string{"checkpoint", "drop"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			ds, ss := open(t, dir, Options{CheckpointBytes: 4 << 10})
			held, release := make(chan struct{}), make(chan struct{})
			ds.testHook = func(s string) { // read by the checkpoint's goroutine, which the writes below start
				if s == step {
					close(held)
					<-release
				}
			}
			a, b := create(t, ss, "a"), create(t, ss, "b")
			for i := 0; ; i++ { // until the journal is retired and its checkpoint held
				write(t, a, fmt.Sprintf("key-%d", i%3))
				select {
				case <-held:
				default:
					continue
				}
				break
			}
			// Answered while the checkpoint waits: the committer does
			// not run it.
			for range 20 {
				write(t, b, "")
				write(t, a, "")
			}
			c := create(t, ss, "c")
			write(t, c, "")
			ss.Delete("b")
			want := worldOf(t, ss)
			if _, err := os.Stat(filepath.Join(dir, oldJournalFile)); err != nil {
				t.Fatalf("want %s while its checkpoint is held: %v", oldJournalFile, err)
			}
			img := copyFolder(t, dir)
			close(release)
			if err := ds.Close(); err != nil {
				t.Fatal(err)
			}

			ds2, ss2 := open(t, img, Options{})
			sameWorld(t, want, worldOf(t, ss2))
			if err := ds2.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(img, oldJournalFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("want %s gone after recovery, have %v", oldJournalFile, err)
			}
			ds3, ss3 := open(t, dir, Options{}) // and the folder the clean stop left
			defer ds3.Close()
			sameWorld(t, want, worldOf(t, ss3))
		})
	}
}

// TestOldJournalDamaged: journal.old was synced whole before it was
// retired, so a record of it that does not read is damage, and the start
// is refused.
func TestOldJournalDamaged(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{})
	write(t, create(t, ss, "a"), "")
	ds.crash()
	raw := journalRecords(t, filepath.Join(dir, journalFile))
	// Cut inside its last record, with the zeros after it that a
	// retired journal has: still damage.
	os.WriteFile(filepath.Join(dir, oldJournalFile), append(raw[:len(raw)-1], make([]byte, 4096)...), 0o600)
	_, err := Open(Options{Dir: dir, Twin: twinName, TwinDigest: twinDigest})
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("want an error wrapping ErrDamaged, have %v", err)
	}
}

// copyFolder copies the state folder's files as they are: what a process
// killed at this moment leaves on disk.
func copyFolder(tb testing.TB, dir string) string {
	tb.Helper()
	img := tb.TempDir()
	for _, name := range []string{dbFile, journalFile, oldJournalFile} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(img, name), raw, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return img
}

// TestFolderFormatsBefore: a folder of format 1 (before journal.old and
// the zeros written ahead) or 2 (before binary checkpoints), whose
// checkpoints are JSON, is taken, with every session, and its header
// names this format after, so that an older wraith refuses it.
func TestFolderFormatsBefore(t *testing.T) {
	for _, format := range []int{1, 2} {
		t.Run(fmt.Sprintf("format %d", format), func(t *testing.T) {
			// A checkpoint of session a, then records of a and b in the
			// journal, as a crash leaves them.
			dir := t.TempDir()
			ds, ss := open(t, dir, Options{})
			write(t, create(t, ss, "a"), "k")
			if err := ds.Close(); err != nil {
				t.Fatal(err)
			}
			ds, ss = open(t, dir, Options{})
			write(t, create(t, ss, "b"), "k")
			a := ss.Get("a")
			write(t, a, "")
			want := worldOf(t, ss)
			ds.crash()
			writeHeaderFile(t, dir, header{Format: format, Twin: twinName, TwinDigest: twinDigest})
			rewriteCheckpoints(t, dir, asJSON(t))
			journalAsJSON(t, filepath.Join(dir, journalFile))
			ds2, ss2 := open(t, dir, Options{})
			sameWorld(t, want, worldOf(t, ss2))
			if err := ds2.Close(); err != nil {
				t.Fatal(err)
			}
			if have := headerOf(t, dir); have.Format != Format {
				t.Errorf("header after a format %d folder was taken: want format %d, have %+v", format, Format, have)
			}
		})
	}
}

// TestOlderFolderKeptOnFailedStart: a folder of an older format whose
// start fails (its journal damaged in the middle) keeps its header: the
// wraith that wrote it can still serve it. Only a recovery that succeeds
// rewrites it as this format's.
func TestOlderFolderKeptOnFailedStart(t *testing.T) {
	dir := t.TempDir()
	ds, ss := open(t, dir, Options{})
	a := create(t, ss, "a")
	for range 5 {
		write(t, a, "")
	}
	ds.crash()
	writeHeaderFile(t, dir, header{Format: 2, Twin: twinName, TwinDigest: twinDigest})
	jpath := filepath.Join(dir, journalFile)
	raw := journalRecords(t, jpath)
	recs, _ := readFrames(raw[len(journalMagic):])
	second := len(journalMagic) + frameHeader + len(recs[0].payload)
	bad := append([]byte(nil), raw...)
	bad[second+frameHeader+4] ^= 0x01
	if err := os.WriteFile(jpath, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Options{Dir: dir, Twin: twinName, TwinDigest: twinDigest}); !errors.Is(err, ErrDamaged) {
		t.Fatalf("want the damaged journal refused, have %v", err)
	}
	if have := headerOf(t, dir); have.Format != 2 {
		t.Errorf("after a failed start: want the folder's header at format 2, have %+v", have)
	}
}

// headerOf is the header dir's state.db holds.
func headerOf(tb testing.TB, dir string) header {
	tb.Helper()
	db, err := openDB(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var h header
	if err := db.View(func(tx *bolt.Tx) error { return json.Unmarshal(tx.Bucket(metaBucket).Get(headerKey), &h) }); err != nil {
		tb.Fatal(err)
	}
	return h
}
