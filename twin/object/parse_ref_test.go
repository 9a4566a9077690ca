package object

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// The reference parser: the Token-by-Token reading of encoding/json that
// Parse replaced, against which FuzzParse compares it.

// Parse decodes one JSON object, keeping field order.
func referenceParse(b []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("parse object: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("parse object: not a JSON object")
	}
	o, err := refObject(dec, 0)
	if err != nil {
		return nil, fmt.Errorf("parse object: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("parse object: data after the object")
	}
	return o, nil
}

func refObject(dec *json.Decoder, depth int) (*Object, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	o := &Object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key is %v, want a string", tok)
		}
		v, err := refValue(dec, depth)
		if err != nil {
			return nil, err
		}
		o.Set(k, v)
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, err
	}
	return o, nil
}

func refValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return refObject(dec, depth+1)
		case '[':
			if depth+1 > maxDepth {
				return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
			}
			arr := []any{}
			for dec.More() {
				v, err := refValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil // nil, bool, json.Number, string
	}
}

// FuzzParse: Parse reads what encoding/json reads, as encoding/json
// reads it, and refuses what it refuses.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{}`, ` {"a":1} `, `{"a":{"b":[1,2,{"c":null}]},"d":"x\u00e9\ud83d\ude00\ud800y","a":2}`,
		`{"n":-0.5e+10,"t":true,"f":false,"s":"\"\\\/\b\f\n\r\t"}`, "{\"k\":\"\xff\xfe\"}",
		`{"a":01}`, `{"a":1,}`, `{"a"}`, `[1]`, `{"a":1} x`, `{"a":"\ud800\u0041"}`, `{"a":[]}`, `{"a":-}`,
		`{"a":1.}`, `{"a":1e}`, `{"a":"\x01"}`, `{"a":tru}`, `{"a":[1 2]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, wantErr := referenceParse(b)
		have, haveErr := Parse(b)
		if (wantErr == nil) != (haveErr == nil) {
			t.Fatalf("%q: encoding/json says %v, Parse says %v", b, wantErr, haveErr)
		}
		if wantErr == nil && !bytes.Equal(want.AppendJSON(nil), have.AppendJSON(nil)) {
			t.Fatalf("%q: encoding/json reads %s, Parse reads %s", b, want.AppendJSON(nil), have.AppendJSON(nil))
		}
	})
}

// TestParseDepth: nesting past maxDepth is refused as before, in objects
// and arrays alike, and nesting up to it is read.
func TestParseDepth(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"objects", strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1)},
		{"objects past", strings.Repeat(`{"a":`, maxDepth+2) + "1" + strings.Repeat("}", maxDepth+2)},
		{"arrays", `{"a":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + "}"},
		{"arrays past", `{"a":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + "}"},
	} {
		_, wantErr := referenceParse([]byte(tc.in))
		_, haveErr := Parse([]byte(tc.in))
		if (wantErr == nil) != (haveErr == nil) {
			t.Errorf("%s: encoding/json says %v, Parse says %v", tc.name, wantErr, haveErr)
		}
	}
}
