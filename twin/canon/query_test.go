package canon_test

import (
	"testing"

	"github.com/wraithdev/wraith/twin/canon"
)

const badEscape = `: want % followed by two hex digits`

var queryTests = []struct {
	name, in, want, wantErr string
}{
	{name: "empty", in: "", want: ""},
	{name: "one parameter", in: "a=1", want: "a=1"},
	{name: "sorted by key", in: "b=2&a=1&c=3", want: "a=1&b=2&c=3"},
	{name: "sorted by escaped key", in: "a%20b=1&a!=2", want: "a%21=2&a+b=1"},
	{name: "repeated keys keep order", in: "a[]=1&a[]=2", want: "a%5B%5D=1&a%5B%5D=2"},
	{name: "repeated keys keep order reversed", in: "a[]=2&a[]=1", want: "a%5B%5D=2&a%5B%5D=1"},
	{name: "repeated keys among others", in: "b=1&a=2&b=0", want: "a=2&b=1&b=0"},
	{name: "same key spelled two ways", in: "%61=2&a=1", want: "a=2&a=1"},
	{name: "unreserved bytes unescaped", in: "a=%7e%2D%2e%5F%41%7A%30", want: "a=~-._Az0"},
	{name: "hex upper-cased", in: "a=%2f%3a", want: "a=%2F%3A"},
	{name: "space as plus", in: "a=hello%20world", want: "a=hello+world"},
	{name: "plus kept", in: "a=x+y", want: "a=x+y"},
	{name: "escaped plus kept", in: "a=%2B", want: "a=%2B"},
	{name: "raw bytes escaped", in: "a=b=c&d=x/y:z", want: "a=b%3Dc&d=x%2Fy%3Az"},
	{name: "raw space", in: "a=x y", want: "a=x+y"},
	{name: "utf-8", in: "name=Jérôme", want: "name=J%C3%A9r%C3%B4me"},
	{name: "semicolon is a byte", in: "a=1;b=2", want: "a=1%3Bb%3D2"},
	{name: "key without equals", in: "a", want: "a="},
	{name: "empty parameters dropped", in: "&a&&b=1&", want: "a=&b=1"},
	{name: "empty key", in: "=v&a=1", want: "=v&a=1"},
	{name: "canonical kept", in: "a=1&a=0&b=%2F", want: "a=1&a=0&b=%2F"},
	{name: "bad escape in value", in: "a=%zz", wantErr: `query value of key "a" has an invalid escape "%zz"` + badEscape},
	{name: "short escape in key", in: "b=1&a%2=1", wantErr: `query key "a%2" has an invalid escape "%2"` + badEscape},
	{name: "escape at end", in: "a=1%", wantErr: `query value of key "a" has an invalid escape "%"` + badEscape},
	{name: "bad escape in canonical-looking input", in: "a=%G1", wantErr: `query value of key "a" has an invalid escape "%G1"` + badEscape},
}

func TestQuery(t *testing.T) {
	for _, tt := range queryTests {
		t.Run(tt.name, func(t *testing.T) {
			have, err := canon.Query(tt.in)
			checkErr(t, err, tt.wantErr)
			if have != tt.want {
				t.Errorf("Query(%q): want %q, have %q", tt.in, tt.want, have)
			}
		})
	}
}

func TestForm(t *testing.T) {
	for _, tt := range queryTests {
		t.Run(tt.name, func(t *testing.T) {
			have, err := canon.Form([]byte(tt.in))
			wantErr := tt.wantErr
			if wantErr != "" {
				wantErr = "form" + wantErr[len("query"):]
			}
			checkErr(t, err, wantErr)
			if have != tt.want {
				t.Errorf("Form(%q): want %q, have %q", tt.in, tt.want, have)
			}
		})
	}
}

func TestQueryAllocs(t *testing.T) {
	tests := []struct {
		name, in string
		want     float64
	}{
		{"empty", "", 0},
		{"one canonical parameter", "limit=10", 0},
		{"canonical parameters", "expand%5B%5D=customer&limit=10&starting_after=cus_123", 0},
		{"one parameter to escape", "expand[]=customer", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have := testing.AllocsPerRun(100, func() {
				if _, err := canon.Query(tt.in); err != nil {
					t.Fatal(err)
				}
			})
			if have != tt.want {
				t.Errorf("allocations: want %v, have %v", tt.want, have)
			}
		})
	}
}

// checkErr fails tb unless err's message is want, or err is nil and want
// is empty.
func checkErr(tb testing.TB, err error, want string) {
	tb.Helper()
	switch {
	case err == nil && want != "":
		tb.Fatalf("error: want %q, have none", want)
	case err != nil && want == "":
		tb.Fatalf("error: want none, have %q", err)
	case err != nil && err.Error() != want:
		tb.Fatalf("error: want %q, have %q", want, err)
	}
}

// customerCreate is a customer create body as stripe-go writes it: struct
// field order, brackets left unescaped.
const customerCreate = "description=Test+customer&email=jenny.rosen%40example.com" +
	"&metadata[order_id]=6735&name=Jenny+Rosen&phone=%2B15555550100&preferred_locales[0]=en"

func BenchmarkQuery(b *testing.B) {
	benchmarks := []struct{ name, in string }{
		{"empty", ""},
		{"1 param", "limit=10"},
		{"1 param escaped", "expand[]=customer"},
		{"5 params canonical", "created%5Bgte%5D=1700000000&email=a%40b.c&expand%5B%5D=data.customer&limit=10&starting_after=cus_123"},
		{"5 params unsorted", "limit=10&starting_after=cus_123&expand[]=data.customer&email=a%40b.c&created[gte]=1700000000"},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := canon.Query(bm.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkForm(b *testing.B) {
	body := []byte(customerCreate)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canon.Form(body); err != nil {
			b.Fatal(err)
		}
	}
}
