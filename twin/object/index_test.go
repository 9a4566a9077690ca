package object

import (
	"fmt"
	"strconv"
	"testing"
)

// TestLargeObjectAgreesWithScan drives an object past indexAt with sets,
// overwrites, deletes and clones, and checks every field against a plain
// ordered model after each step.
func TestLargeObjectAgreesWithScan(t *testing.T) {
	type model struct {
		keys []string
		vals map[string]any
	}
	check := func(t *testing.T, step string, o *Object, m *model) {
		t.Helper()
		if have, want := o.Len(), len(m.keys); have != want {
			t.Fatalf("%s: want %d fields, have %d", step, want, have)
		}
		for i, k := range m.keys {
			if o.Keys()[i] != k {
				t.Fatalf("%s: field %d: want %q, have %q", step, i, k, o.Keys()[i])
			}
			v, ok := o.Get(k)
			if !ok || v != m.vals[k] {
				t.Fatalf("%s: Get(%q): want %v, have %v (found %v)", step, k, m.vals[k], v, ok)
			}
		}
		if _, ok := o.Get("absent"); ok {
			t.Fatalf("%s: Get(absent) found a field", step)
		}
	}
	o, m := New(0), &model{vals: map[string]any{}}
	set := func(k string, v any) {
		if _, ok := m.vals[k]; !ok {
			m.keys = append(m.keys, k)
		}
		m.vals[k] = v
		o.Set(k, v)
	}
	del := func(k string) {
		o.Delete(k)
		if _, ok := m.vals[k]; !ok {
			return
		}
		delete(m.vals, k)
		for i, mk := range m.keys {
			if mk == k {
				m.keys = append(m.keys[:i:i], m.keys[i+1:]...)
				break
			}
		}
	}
	for i := range 3 * indexAt {
		set("k"+strconv.Itoa(i), i)
	}
	check(t, "after sets", o, m)
	if o.index == nil {
		t.Fatalf("want an index past %d fields, have none", indexAt)
	}
	set("k5", "overwritten")
	del("k0")
	del("k100")
	del("never-set")
	set("k0", "back, at the end")
	check(t, "after overwrite and deletes", o, m)

	c := o.Clone()
	c.Set("only-in-clone", true)
	c.Delete("k1")
	check(t, "original after clone edits", o, m)
	if _, ok := c.Get("only-in-clone"); !ok {
		t.Error("clone lost its own field")
	}
	if _, ok := c.Get("k1"); ok {
		t.Error("clone kept a field it deleted")
	}
}

// TestSetIsLinear guards against a return of the per-key scan (80k
// distinct fields took tens of seconds with it) without timing anything:
// past indexAt fields every name must be in the index at its position, so
// that Set and Get find a field by one map lookup, at 80k fields as at
// 100, after deletes and in a clone. BenchmarkSetGet shows the time per
// field staying flat as n doubles.
func TestSetIsLinear(t *testing.T) {
	indexed := func(t *testing.T, what string, o *Object) {
		t.Helper()
		if o.index == nil {
			t.Fatalf("%s: %d fields and no index: Set and Get scan every name", what, o.Len())
		}
		if have, want := len(o.index), o.Len(); have != want {
			t.Fatalf("%s: want %d names in the index, have %d", what, want, have)
		}
		for i, k := range o.Keys() {
			if at, ok := o.index[k]; !ok || at != i {
				t.Fatalf("%s: field %q is at %d, the index says %d (found %v)", what, k, i, at, ok)
			}
		}
	}
	for _, n := range []int{indexAt + 1, 1000, 80000} {
		o := New(0)
		for i := range n {
			o.Set("key_"+strconv.Itoa(i), "v")
		}
		indexed(t, strconv.Itoa(n)+" fields", o)
		for i := range n {
			if !o.Has("key_" + strconv.Itoa(i)) {
				t.Fatalf("%d fields: key_%d missing", n, i)
			}
		}
		o.Delete("key_0")
		o.Set("key_"+strconv.Itoa(n), "v")
		indexed(t, strconv.Itoa(n)+" fields after a delete and a set", o)
		indexed(t, strconv.Itoa(n)+" fields, cloned", o.Clone())
	}
}

// BenchmarkSetGet builds an object of n fields and reads each back: the
// time per field must stay flat as n doubles.
func BenchmarkSetGet(b *testing.B) {
	for _, n := range []int{16, 10000, 20000, 40000, 80000} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("key_%d", i)
		}
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o := New(0)
				for _, k := range keys {
					o.Set(k, k)
				}
				for _, k := range keys {
					o.Get(k)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}
