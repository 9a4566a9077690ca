package object

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// skeletonFixtures are skeletons shaped like providers' objects: nested
// metadata, lists, nulls, escapes, and the empty object.
var skeletonFixtures = []string{
	`{"id":"cus_x","object":"customer","address":null,"balance":0,"created":1,"currency":null,"default_source":null,"delinquent":false,"description":null,"email":null,"invoice_settings":{"custom_fields":null,"default_payment_method":null,"footer":null},"livemode":false,"metadata":{},"name":null,"preferred_locales":[],"tax_exempt":"none"}`,
	`{"id":"","object":"charge","amount":0,"items":{"object":"list","data":[],"has_more":false},"note":"a \"quoted\" \u2028 line","tags":["a","b"]}`,
	`{"a":1}`,
	`{}`,
}

// edit is one change a test or the fuzzer makes to an object built over a
// skeleton.
type edit struct {
	op  byte // 's' set, 'd' delete, 'n' set a nested object, 'l' set a list
	key string
	val any
}

func apply(o *Object, edits []edit) {
	for _, e := range edits {
		switch e.op {
		case 's':
			o.Set(e.key, e.val)
		case 'd':
			o.Delete(e.key)
		case 'n':
			n := New(1)
			n.Set("k", e.val)
			o.Set(e.key, n)
		case 'l':
			o.Set(e.key, []any{e.val, nil})
		}
	}
}

// checkRebuilt builds o's patch against s and checks that it rebuilds o's
// encoding byte for byte, and that Len says its length.
func checkRebuilt(t testing.TB, s *Skeleton, o *Object, known Known) []byte {
	t.Helper()
	want := o.AppendJSON(nil)
	patch := s.AppendDiff(nil, o, known)
	have := s.Append(nil, patch, known)
	if !bytes.Equal(have, want) {
		t.Fatalf("rebuilt body differs:\nwant %s\nhave %s\npatch %q", want, have, patch)
	}
	if n := s.Len(patch, known); n != len(want) {
		t.Fatalf("Len: want %d, have %d (%s)", len(want), n, want)
	}
	return patch
}

func TestSkeletonPatchRebuildsTheEncoding(t *testing.T) {
	tests := []struct {
		name  string
		edits []edit
	}{
		{"unchanged", nil},
		{"set scalars", []edit{{'s', "id", "cus_123"}, {'s', "created", json.Number("1700000000")}, {'s', "email", "jenny@example.com"}}},
		{"known values elsewhere", []edit{{'s', "email", "cus_123"}, {'s', "balance", json.Number("1700000000")}, {'s', "zz", "cus_123"}}},
		{"escaped id", []edit{{'s', "id", "cus_\"\u2028é"}}},
		{"id escaped past ASCII", []edit{{'s', "id", "cus_\u2028\xff"}}},
		{"set to the skeleton's own value", []edit{{'s', "balance", json.Number("0")}, {'s', "delinquent", false}, {'s', "tax_exempt", "none"}}},
		{"unicode and escapes", []edit{{'s', "name", "Zoë \"Z\" \u2028 \x01 ✓"}, {'s', "description", ""}}},
		{"empty string", []edit{{'s', "email", ""}}},
		{"nested metadata", []edit{{'n', "metadata", "42"}}},
		{"nested replaced by null", []edit{{'s', "invoice_settings", nil}}},
		{"list", []edit{{'l', "preferred_locales", "en"}}},
		{"delete first", []edit{{'d', "id", nil}}},
		{"delete last", []edit{{'d', "tax_exempt", nil}}},
		{"delete all but one", []edit{{'d', "id", nil}, {'d', "object", nil}, {'d', "address", nil}, {'d', "balance", nil}, {'d', "created", nil}, {'d', "currency", nil}, {'d', "default_source", nil}, {'d', "delinquent", nil}, {'d', "description", nil}, {'d', "email", nil}, {'d', "invoice_settings", nil}, {'d', "livemode", nil}, {'d', "metadata", nil}, {'d', "name", nil}, {'d', "preferred_locales", nil}}},
		{"add fields", []edit{{'s', "new", "x"}, {'n', "other", "y"}}},
		{"delete then set again moves to the end", []edit{{'d', "email", nil}, {'s', "email", "e@x"}, {'s', "name", "N"}}},
		{"add then change a skeleton field", []edit{{'s', "zzz", true}, {'s', "balance", json.Number("5")}}},
		{"delete, add, delete", []edit{{'d', "object", nil}, {'s', "added", nil}, {'d', "livemode", nil}, {'s', "id", "i"}}},
	}
	for _, f := range skeletonFixtures {
		skel, err := Parse([]byte(f))
		if err != nil {
			t.Fatal(err)
		}
		s := NewSkeleton(skel)
		if !bytes.Equal(s.Bytes(), skel.AppendJSON(nil)) {
			t.Fatalf("skeleton encoding: want %s, have %s", skel.AppendJSON(nil), s.Bytes())
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%.20s/%s", f, tt.name), func(t *testing.T) {
				for _, clone := range []bool{true, false} {
					o := skel.Clone()
					if !clone { // values shared with the skeleton, as a shallow copy has
						o = &Object{keys: skel.keys[:len(skel.keys):len(skel.keys)], vals: append([]any(nil), skel.vals...)}
					}
					apply(o, tt.edits)
					for _, known := range []Known{{}, {ID: "cus_123", Created: 1700000000}, {ID: "none", Created: -1}, {ID: o.String("id"), Created: 1}} {
						checkRebuilt(t, s, o, known)
					}
				}
			})
		}
	}
}

// TestSkeletonPatchIsSmall: an object that differs from its skeleton in a
// few fields keeps only those, not the skeleton's bytes again.
func TestSkeletonPatchIsSmall(t *testing.T) {
	skel, _ := Parse([]byte(skeletonFixtures[0]))
	s := NewSkeleton(skel)
	o := skel.Clone()
	apply(o, []edit{{'s', "id", "cus_123"}, {'s', "created", json.Number("1700000000")}, {'s', "email", "jenny@example.com"}})
	patch := checkRebuilt(t, s, o, Known{ID: "cus_123", Created: 1700000000})
	if max := len(`"jenny@example.com"`) + 8; len(patch) > max {
		t.Errorf("want a patch of at most %d bytes (the id and creation time are known), have %d: %q", max, len(patch), patch)
	}
}

// FuzzSkeletonPatch drives an object built over a skeleton through edits
// read from the input and checks that its patch rebuilds its encoding.
func FuzzSkeletonPatch(f *testing.F) {
	f.Add(uint8(0), []byte("s\x00id\x00cus_1\x00d\x05\x00n\x0bmetadata\x00é\x00"))
	f.Add(uint8(1), []byte("s\x02zz\x00\x00l\x03a\x00"))
	f.Add(uint8(2), []byte("d\x00\x00s\x00a\x00\u2028\x00"))
	f.Fuzz(func(t *testing.T, which uint8, script []byte) {
		skel, err := Parse([]byte(skeletonFixtures[int(which)%len(skeletonFixtures)]))
		if err != nil {
			t.Fatal(err)
		}
		s := NewSkeleton(skel)
		o := skel.Clone()
		if which&0x80 != 0 {
			o = &Object{keys: skel.keys[:len(skel.keys):len(skel.keys)], vals: append([]any(nil), skel.vals...)}
		}
		var edits []edit
		for len(script) >= 2 && len(edits) < 64 {
			op, pick := script[0], script[1]
			script = script[2:]
			var key, val string
			key, script = cut(script)
			val, script = cut(script)
			if key == "" && len(skel.keys) > 0 {
				key = skel.keys[int(pick)%len(skel.keys)]
			}
			var v any = val
			switch pick % 4 {
			case 1:
				v = json.Number(fmt.Sprint(len(val)))
			case 2:
				v = nil
			case 3:
				v = len(val)%2 == 0
			}
			edits = append(edits, edit{op: "sdnl"[int(op)%4], key: key, val: v})
		}
		apply(o, edits)
		known := Known{ID: o.String("id"), Created: int64(len(script))}
		if which&0x40 != 0 {
			known.ID = "cus_1"
			o.Set("created", json.Number(fmt.Sprint(known.Created)))
		}
		checkRebuilt(t, s, o, known)
	})
}

// cut returns the text up to the next zero byte and what follows it.
func cut(b []byte) (string, []byte) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return string(b[:i]), b[i+1:]
	}
	return string(b), nil
}
