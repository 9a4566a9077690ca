package canon_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/wraithdev/wraith/twin/canon"
)

// flatSeeds are forms of every shape FlatParams takes or leaves to Params.
var flatSeeds = []string{
	"", "a=1", "b=2&a=1", "a=1&a=2", "a&b=", "=1", "&&a&",
	"email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42",
	"metadata[b]=2&metadata[a]=1&metadata[b]=3", "metadata[a]=&metadata=", "a=1&a[b]=2", "a[b]=2&a=1", "a[b]=1&a=2&a=3",
	"a[]=x&a[]=y", "a[0]=x&a[1]=y", "a[0]=x&a[b]=y", "a[00]=x", "a[7]=x", "a[b][c]=v", "a[b][]=v",
	"a%5Bb%5D=v", "a%5B0%5D=v", "a[b=1", "a]=1", "a[b]c=1", "[a]=1", "a[]b=1", "a[[b]]=1",
	"a=%zz", "a%zz=1", "a=%", "a=%4", "a=x+y%20z", "n%C3%A9=%E2%82%AC&m[%C3%A9]=%F0%9F%98%80", "a=\xff&\xfe[b]=c",
	"a=1;b=2", "Z=1&a=2&_=3&A[z]=1&A[Z]=2",
}

func FuzzFlatParams(f *testing.F) {
	for _, s := range flatSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkFlat(t, in)
	})
}

func TestFlatParams(t *testing.T) {
	for _, in := range flatSeeds {
		checkFlat(t, in)
	}
	for _, tt := range []struct {
		in   string
		want []canon.FlatParam // nil: left to Params
	}{
		{"b=2&a=1&a=3", []canon.FlatParam{{Name: "a", Value: "3"}, {Name: "b", Value: "2"}}},
		{"m[y]=1&email=a%40b.c&m[x]=2&m[y]=+", []canon.FlatParam{{Name: "email", Value: "a@b.c"}, {Name: "m", Key: "x", Value: "2"}, {Name: "m", Key: "y", Value: " "}}},
		{"a=1&a[b]=2", nil},
		{"a[]=1", nil},
		{"a[0]=1", nil},
		{"a[b][c]=1", nil},
		{"a=%zz", nil},
	} {
		have, ok := canon.FlatParams(nil, formType, []byte(tt.in), "")
		if ok != (tt.want != nil) || len(have) != len(tt.want) || ok && !reflect.DeepEqual(have, tt.want) {
			t.Errorf("FlatParams(%q): want %q, %v; have %q, %v", tt.in, tt.want, tt.want != nil, have, ok)
		}
	}
	for _, tt := range []struct{ contentType, query string }{{jsonType, ""}, {"", ""}, {formType, "a=1"}} {
		if _, ok := canon.FlatParams(nil, tt.contentType, []byte("a=1"), tt.query); ok {
			t.Errorf("FlatParams(%q, query %q) read the request: want it left to Params", tt.contentType, tt.query)
		}
	}
}

// checkFlat checks that whenever FlatParams reads the form in, it reads
// what Params does: the same tree, from parameters in order.
func checkFlat(tb testing.TB, in string) {
	tb.Helper()
	prefix := []canon.FlatParam{{Name: "kept"}}
	have, ok := canon.FlatParams(prefix, formType, []byte(in), "")
	if !slices.Equal(have[:1], prefix) {
		tb.Fatalf("FlatParams(%q) changed what dst held: %q", in, have[:1])
	}
	if !ok {
		if len(have) != 1 {
			tb.Fatalf("FlatParams(%q) left the form to Params but appended %q", in, have[1:])
		}
		return
	}
	have = have[1:]
	want, err := canon.Params(formType, []byte(in), "")
	if err != nil {
		tb.Fatalf("FlatParams(%q) read %q, but Params refuses the form: %v", in, have, err)
	}
	tree := map[string]any{}
	for i, p := range have {
		if i > 0 {
			prev := have[i-1]
			if prev.Name > p.Name || prev.Name == p.Name && prev.Key >= p.Key {
				tb.Fatalf("FlatParams(%q) = %q: not sorted by name and key, each once", in, have)
			}
		}
		if p.Key == "" {
			tree[p.Name] = p.Value
			continue
		}
		m, _ := tree[p.Name].(map[string]any)
		if m == nil {
			m = map[string]any{}
			tree[p.Name] = m
		}
		m[p.Key] = p.Value
	}
	if !reflect.DeepEqual(tree, want) {
		tb.Fatalf("FlatParams(%q) = %q, which is the tree %#v; Params reads %#v", in, have, tree, want)
	}
}

func BenchmarkFlatParams(b *testing.B) {
	body := []byte("email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42")
	b.ReportAllocs()
	var buf [16]canon.FlatParam
	for b.Loop() {
		if _, ok := canon.FlatParams(buf[:0], formType, body, ""); !ok {
			b.Fatal("FlatParams left the customer's create to Params")
		}
	}
}
