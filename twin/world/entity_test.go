package world

import (
	"bytes"
	"crypto/sha256"
	"reflect"
	"sync"
	"testing"
	"unsafe"

	"github.com/wraithdev/wraith/twin/object"
)

// patchedCustomer returns a customer with email kept as a patch over a
// customer skeleton, and its body.
func patchedCustomer(tb testing.TB, email string) (*Entity, []byte) {
	tb.Helper()
	skel, err := object.Parse([]byte(`{"id":"","object":"customer","email":null,"metadata":{},"livemode":false}`))
	if err != nil {
		tb.Fatal(err)
	}
	s := object.NewSkeleton(skel)
	o := skel.CloneTop()
	o.Set("id", "cus_1")
	o.Set("email", email)
	e := &Entity{ID: "cus_1", Resource: "customer"}
	e.SetPatch(s, s.AppendDiff(nil, o, e.Known()))
	return e, o.AppendJSON(nil)
}

// TestPatchedEntityReadsInParallel reads a patched entity's body, length
// and hash from many goroutines at once, as reads of one session under a
// shared lock and digests of several sessions do (run with -race), and
// checks every reader sees the object's encoding and its hash.
func TestPatchedEntityReadsInParallel(t *testing.T) {
	e, want := patchedCustomer(t, "tok_1@example.invalid")
	if !e.Patched() {
		t.Fatal("SetPatch: want a patched entity")
	}
	wantSum := hashBody(want)

	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if b := e.Body(); !bytes.Equal(b, want) {
					errs <- "Body: want " + string(want) + ", have " + string(b)
					return
				}
				if n := e.BodyLen(); n != len(want) {
					errs <- "BodyLen differs from the body's length"
					return
				}
				if sum := e.BodyHash(); sum != wantSum {
					errs <- "BodyHash differs from the body's hash"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Fatal(msg)
	}
	if have := e.BodyHash(); have != wantSum || have == [sha256.Size]byte{} {
		t.Errorf("cached hash: want %x, have %x", wantSum, have)
	}
}

// TestCopyForgetsTheHash: a changed copy of an entity hashes its own
// body and not the original's cached one, and Copy carries every field
// and the body (an exported field added to Entity fails this until Copy
// carries it).
func TestCopyForgetsTheHash(t *testing.T) {
	e := &Entity{ID: "a", Resource: "r", Created: 1, Seq: 2, Provenance: Fixture, Deleted: true}
	e.SetPlace("x/0", "o/r")
	e.SetBody([]byte(`{"id":"a","n":1}`))
	first := e.BodyHash()
	c := e.Copy()
	v, w := reflect.ValueOf(e).Elem(), reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && !reflect.DeepEqual(v.Field(i).Interface(), w.Field(i).Interface()) {
			t.Errorf("Copy: field %s differs", f.Name)
		}
	}
	if !bytes.Equal(c.Body(), e.Body()) || c.Patched() != e.Patched() {
		t.Error("Copy: the body differs")
	}
	if c.Exchange() != "x/0" || c.Scope() != "o/r" {
		t.Errorf("Copy: exchange %q and scope %q, want x/0 and o/r", c.Exchange(), c.Scope())
	}
	c.SetBody([]byte(`{"id":"a","n":2}`))
	if c.BodyHash() == first {
		t.Error("a changed copy kept its original's hash")
	}
	if e.BodyHash() != first {
		t.Error("changing a copy changed the original's hash")
	}
}

// TestBodyIs: BodyIs is true for the entity's body alone, byte for byte,
// kept whole or as a patch, and allocates nothing.
func TestBodyIs(t *testing.T) {
	patched, body := patchedCustomer(t, "a@example.invalid")
	whole := &Entity{ID: "cus_1", Resource: "customer"}
	whole.SetBody(bytes.Clone(body))
	other := bytes.Replace(body, []byte("a@"), []byte("b@"), 1)
	for name, e := range map[string]*Entity{"patched": patched, "whole": whole} {
		if !e.BodyIs(body) {
			t.Errorf("%s: BodyIs(its body) is false", name)
		}
		for _, b := range [][]byte{other, body[:len(body)-1], nil, append(bytes.Clone(body), ' ')} {
			if e.BodyIs(b) {
				t.Errorf("%s: BodyIs(%q) is true", name, b)
			}
		}
		if n := testing.AllocsPerRun(20, func() { e.BodyIs(body) }); n != 0 {
			t.Errorf("%s: BodyIs allocates %v times", name, n)
		}
	}
}

// TestPlace: an entity's exchange and scope read back as set, alone,
// together and neither, and a scope may hold a NUL (a snapshot's
// scope is any text); setting the scope keeps the exchange.
func TestPlace(t *testing.T) {
	for _, tc := range []struct{ exchange, scope string }{
		{"", ""}, {"rec.json/3", ""}, {"", "octocat/hello"}, {"rec.json/3", "octocat/hello"}, {"rec.json/3", "a\x00b"}, {"", "a\x00b"},
	} {
		var e Entity
		e.SetPlace(tc.exchange, tc.scope)
		if e.Exchange() != tc.exchange || e.Scope() != tc.scope {
			t.Errorf("SetPlace(%q, %q): read back %q, %q", tc.exchange, tc.scope, e.Exchange(), e.Scope())
		}
		e.SetScope("o/r")
		if e.Exchange() != tc.exchange || e.Scope() != "o/r" {
			t.Errorf("SetPlace(%q, %q) then SetScope(o/r): read back %q, %q", tc.exchange, tc.scope, e.Exchange(), e.Scope())
		}
	}
	if size := unsafe.Sizeof(Entity{}); size > 112 {
		t.Errorf("an Entity is %d bytes: want at most 112, the allocator's size class below 128", size)
	}
}
