package object

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestParseKeepsOrderAndRoundTrips(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"order", `{"id":"cus_1","object":"customer","a":1}`, `{"id":"cus_1","object":"customer","a":1}`},
		{"whitespace", "{ \"b\" : [1, 2.50, {\"z\":null,\"a\":true}] ,\n \"a\": \"x\" }", `{"b":[1,2.50,{"z":null,"a":true}],"a":"x"}`},
		{"escapes", `{"s":"a\"b\\c\n\u0001<&>\u2028"}`, `{"s":"a\"b\\c\n\u0001<&>\u2028"}`},
		{"empty", `{}`, `{}`},
		{"duplicate key keeps first position, last value", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if have := string(o.AppendJSON(nil)); have != tt.want {
				t.Errorf("want %s, have %s", tt.want, have)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{``, `[]`, `"x"`, `{"a":}`, `{"a":1} {}`, `{"a":1`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q): want an error, have none", in)
		}
	}
	deep := ""
	for i := 0; i < 100; i++ {
		deep += `{"a":`
	}
	deep += "1"
	for i := 0; i < 100; i++ {
		deep += "}"
	}
	if _, err := Parse([]byte(deep)); err == nil {
		t.Error("Parse of 100 nested objects: want a depth error, have none")
	}
}

func TestSetDeleteClone(t *testing.T) {
	o, err := Parse([]byte(`{"id":"x","metadata":{"k":"v"},"list":[{"a":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := o.Clone()
	c.Set("id", "y")
	c.Set("new", json.Number("7"))
	md, _ := c.Get("metadata")
	md.(*Object).Set("k", "changed")
	l, _ := c.Get("list")
	l.([]any)[0].(*Object).Set("a", "changed")
	c.Delete("list")
	if have, want := string(o.AppendJSON(nil)), `{"id":"x","metadata":{"k":"v"},"list":[{"a":1}]}`; have != want {
		t.Errorf("original changed by clone edits: want %s, have %s", want, have)
	}
	if have, want := string(c.AppendJSON(nil)), `{"id":"y","metadata":{"k":"changed"},"new":7}`; have != want {
		t.Errorf("clone: want %s, have %s", want, have)
	}
}

func TestAppendStringMatchesJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\"", "tab\t", "\x00\x1f", "héllo", "\xff bad utf8", "\u2029"} {
		var back string
		if err := json.Unmarshal(AppendString(nil, s), &back); err != nil {
			t.Fatalf("AppendString(%q) is not valid JSON: %v", s, err)
		}
		var want string
		b, _ := json.Marshal(s)
		json.Unmarshal(b, &want)
		if back != want {
			t.Errorf("AppendString(%q) decodes to %q, want %q", s, back, want)
		}
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	o, _ := Parse([]byte(`{"id":"cus_123","object":"customer","address":null,"balance":0,"created":1700000000,"email":"tok_3f9a1c0b7d2e@example.invalid","metadata":{"order":"42"},"name":"tok_aa11bb22cc33","preferred_locales":[]}`))
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = o.AppendJSON(buf[:0])
	}
}

// TestNewSmall: an object made with room for one or two fields comes in
// one allocation and still grows, deletes and clones past its room.
func TestNewSmall(t *testing.T) {
	for n := range 5 {
		o := New(n)
		want := "{"
		for i := range n + 2 {
			k := strconv.Itoa(i)
			o.Set(k, k)
			if i > 0 {
				want += ","
			}
			want += `"` + k + `":"` + k + `"`
		}
		o.Set("0", "zero")
		want = strings.Replace(want+"}", `"0":"0"`, `"0":"zero"`, 1)
		c := o.Clone()
		o.Delete("1")
		if have := string(c.AppendJSON(nil)); have != want {
			t.Errorf("New(%d): want %s, have %s", n, want, have)
		}
		if have := o.Len(); have != n+1 {
			t.Errorf("New(%d) after a delete: want %d fields, have %d", n, n+1, have)
		}
	}
	var kept *Object // outlives the call, as a parameter's object does
	for _, n := range []int{1, 2} {
		if allocs := testing.AllocsPerRun(100, func() { kept = New(n); kept.Set("k", "v") }); allocs != 1 {
			t.Errorf("New(%d): want 1 allocation, have %v", n, allocs)
		}
	}
}

// TestCloneTopInto: a recycled object becomes the same copy CloneTop
// makes, without allocating, and changing it leaves the original as it
// was.
func TestCloneTopInto(t *testing.T) {
	o, err := Parse([]byte(`{"id":"","metadata":{},"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"id":"","metadata":{},"n":1}`
	c := o.CloneTopInto(nil)
	c.Set("id", "x")
	c.Set("extra", "e")
	c.Delete("n")
	c.Recycle()
	if c.Len() != 0 {
		t.Errorf("a recycled object has %d fields", c.Len())
	}
	var again *Object
	if allocs := testing.AllocsPerRun(100, func() { again = o.CloneTopInto(c) }); allocs != 0 {
		t.Errorf("CloneTopInto a recycled object: want no allocation, have %v", allocs)
	}
	if have := string(again.AppendJSON(nil)); have != want {
		t.Errorf("want %s, have %s", want, have)
	}
	again.Set("id", "y")
	again.Set("added", "a")
	if have := string(o.AppendJSON(nil)); have != want {
		t.Errorf("the original changed: want %s, have %s", want, have)
	}
}

// TestNilReadsEmpty: a field that is no object, read as one (a price
// the request named by an id the session lacks), has no fields, where
// reading it panicked the request.
func TestNilReadsEmpty(t *testing.T) {
	var o *Object
	if v, ok := o.Get("unit_amount"); v != nil || ok {
		t.Errorf("Get on nil: want nil, false; have %v, %v", v, ok)
	}
	if o.Has("x") || o.String("x") != "" || o.Len() != 0 || o.Keys() != nil || o.Values() != nil {
		t.Error("a nil Object: want it to read as empty")
	}
}
