package canon_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/canon"
)

var pairSeeds = []string{
	"", "a=1", "b=2&a=1", "a[]=2&a[]=1&b=0", "a=%zz", "a%2=1", "&&a&", "=v",
	"a=1;b=2", "name=J%c3%a9r%c3%b4me&x=a+b%20c", "%61=1&a=2&b[c][0]=d",
	"amount=2000&currency=usd&customer=cus_123&description=Test+charge&metadata[order_id]=6735&payment_method_types[]=card",
}

func FuzzQuery(f *testing.F) {
	for _, s := range pairSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		have, err := canon.Query(in)
		std, stdErr := url.ParseQuery(in)
		if !strings.Contains(in, ";") && (err == nil) != (stdErr == nil) {
			t.Fatalf("Query(%q) error %v, but url.ParseQuery error %v", in, err, stdErr)
		}
		if err != nil {
			return
		}
		checkIdempotent(t, canon.Query, in, have)
		if back, err := url.ParseQuery(have); err != nil {
			t.Fatalf("url.ParseQuery(%q): %v", have, err)
		} else if stdErr == nil && !reflect.DeepEqual(back, std) {
			t.Fatalf("Query(%q) = %q changed the parameters: want %v, have %v", in, have, std, back)
		}
		// Moving whole groups of same-key parameters never changes the
		// canonical form.
		for _, perm := range permutations(t, in) {
			if p, err := canon.Query(perm); err != nil || p != have {
				t.Fatalf("Query(%q) = %q, %v; Query(%q) = %q", perm, p, err, in, have)
			}
		}
	})
}

func FuzzForm(f *testing.F) {
	for _, s := range pairSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		have, err := canon.Form(in)
		q, qErr := canon.Query(string(in))
		if have != q || (err == nil) != (qErr == nil) {
			t.Fatalf("Form(%q) = %q, %v; Query gives %q, %v", in, have, err, q, qErr)
		}
		if err == nil {
			checkIdempotent(t, func(s string) (string, error) { return canon.Form([]byte(s)) }, string(in), have)
		}
	})
}

// checkIdempotent fails tb unless canonical(have) == have.
func checkIdempotent(tb testing.TB, canonical func(string) (string, error), in, have string) {
	tb.Helper()
	again, err := canonical(have)
	if err != nil || again != have {
		tb.Fatalf("not idempotent: %q → %q → %q, %v", in, have, again, err)
	}
}

// permutations returns in with its parameters grouped by canonical key,
// the groups reversed and rotated.
func permutations(tb testing.TB, in string) []string {
	tb.Helper()
	var keys []string
	groups := map[string][]string{}
	for _, pair := range strings.Split(in, "&") {
		if pair == "" {
			continue
		}
		k, _, _ := strings.Cut(pair, "=")
		ck, err := canon.Query(k)
		if err != nil {
			tb.Fatalf("key %q of valid query %q: %v", k, in, err)
		}
		if _, ok := groups[ck]; !ok {
			keys = append(keys, ck)
		}
		groups[ck] = append(groups[ck], pair)
	}
	join := func(order []string) string {
		var pairs []string
		for _, k := range order {
			pairs = append(pairs, groups[k]...)
		}
		return strings.Join(pairs, "&")
	}
	reversed := slices.Clone(keys)
	slices.Reverse(reversed)
	perms := []string{join(reversed)}
	if len(keys) > 2 {
		perms = append(perms, join(append(slices.Clone(keys[1:]), keys[0])))
	}
	return perms
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		"", " ", `{"b":1,"a":[true,false,null,"x"]}`, `{"a":1,"a":2}`, `[1.0,-0,1e5]`,
		`"\ud83d\ude00\ud800\u2028<>&"`, "\"\xff\x7f\"", `{"\u0062":1,"a":{"d":{},"c":[]}}`, `{`, `[01]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		have, err := canon.JSON(in)
		if len(bytes.TrimLeft(in, " \t\r\n")) == 0 {
			if have != nil || err != nil {
				t.Fatalf("JSON(%q) = %q, %v; want nil, nil", in, have, err)
			}
			return
		}
		valid := json.Valid(in)
		if valid != (err == nil) && !strings.Contains(errString(err), "nesting deeper") {
			t.Fatalf("JSON(%q) error %v, but json.Valid says %v", in, err, valid)
		}
		if err != nil {
			return
		}
		if want := stdCanonical(t, in); !bytes.Equal(have, want) {
			t.Fatalf("JSON(%q): want %s, have %s", in, want, have)
		}
		if again, err := canon.JSON(have); err != nil || !bytes.Equal(again, have) {
			t.Fatalf("not idempotent: %q → %q → %q, %v", in, have, again, err)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func FuzzParams(f *testing.F) {
	for _, s := range pairSeeds {
		f.Add(uint8(0), []byte(s), s)
		f.Add(uint8(1), []byte(`{"a":{"b":[1,"x",null]},"c":true}`), s)
	}
	f.Add(uint8(2), []byte("a[0]=x&a[1][b]=y"), "a[]=1")
	f.Add(uint8(0), []byte("a[1]=y&a[0]=x&a[b]=z&a=1"), "")
	types := []string{formType, jsonType, "text/plain"}
	f.Fuzz(func(t *testing.T, kind uint8, body []byte, query string) {
		contentType := types[int(kind)%len(types)]
		have, err := canon.Params(contentType, body, query)
		if err != nil {
			return
		}
		if have == nil {
			t.Fatal("nil map without an error")
		}
		checkTree(t, have, 0)
		if contentType == jsonType && len(bytes.TrimLeft(body, " \t\r\n")) > 0 {
			// A JSON body decodes as encoding/json decodes it.
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			var std map[string]any
			if err := dec.Decode(&std); err != nil {
				t.Fatalf("Params accepted a JSON body encoding/json rejects: %v", err)
			}
			for k, want := range std {
				if !reflect.DeepEqual(have[k], want) {
					t.Fatalf("JSON body %q, key %q: want %#v, have %#v", body, k, want, have[k])
				}
			}
		}
		// The canonical query means the same parameters.
		cq, err := canon.Query(query)
		if err != nil {
			t.Fatalf("Params accepted query %q that Query rejects: %v", query, err)
		}
		if again, err := canon.Params(contentType, body, cq); err != nil || !reflect.DeepEqual(again, have) {
			t.Fatalf("query %q and its canonical form %q decode differently: %#v, %v; %#v", query, cq, again, err, have)
		}
	})
}

// checkTree fails tb unless v holds only the types Params promises, no
// deeper than it promises.
func checkTree(tb testing.TB, v any, depth int) {
	tb.Helper()
	if depth > canon.MaxDepth+1 {
		tb.Fatalf("tree deeper than %d", canon.MaxDepth+1)
	}
	switch v := v.(type) {
	case map[string]any:
		for _, c := range v {
			checkTree(tb, c, depth+1)
		}
	case []any:
		for _, c := range v {
			checkTree(tb, c, depth+1)
		}
	case string, json.Number, bool, nil:
	default:
		tb.Fatalf("unexpected %T in tree", v)
	}
}
