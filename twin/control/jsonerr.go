package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// jsonProblem turns a decoding error into a message a caller can act on,
// naming the field at fault and what it should hold, with the field (and
// for unknown fields, the accepted ones) as error details. It never shows
// Go type names.
func jsonProblem(err error, v any) (string, map[string]any) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("the body is not valid JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: ")),
			map[string]any{"offset": syn.Offset}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body ends in the middle of its JSON: send a whole object", nil
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("the body must be a JSON object, not %s", article(typ.Value)), nil
		}
		return fmt.Sprintf("field %q must be %s, not %s", typ.Field, wantOf(typ.Type), article(typ.Value)),
			map[string]any{"field": typ.Field}
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		if f, err := strconv.Unquote(name); err == nil {
			name = f
		}
		accepted := fieldsOf(v)
		return fmt.Sprintf("unknown field %q: this endpoint accepts %s", name, strings.Join(accepted, ", ")),
			map[string]any{"field": name, "accepted": accepted}
	}
	if strings.Contains(msg, "into Number") {
		// A quoted non-number where json.Number is expected (the seed).
		return "a number field (such as seed) holds a string that is not a number: send a bare JSON number", nil
	}
	return "the body is not the expected JSON: " + msg, nil
}

// wantOf says in JSON terms what a Go type accepts.
func wantOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		if t == reflect.TypeFor[json.Number]() {
			return "a number"
		}
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number from -9223372036854775808 to 9223372036854775807"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "another JSON type"
}

// article renders an UnmarshalTypeError's Value ("string", "number 1.5").
func article(v string) string {
	switch {
	case v == "":
		return "that"
	case strings.HasPrefix(v, "number"):
		return "the " + v
	case v == "array" || v == "object":
		return "an " + v
	}
	return "a " + v
}

// fieldsOf lists the JSON names of v's fields, nested ones as
// "outer.inner", in declaration order.
func fieldsOf(v any) []string {
	return fieldsOfType(reflect.TypeOf(v), "", 0)
}

func fieldsOfType(t reflect.Type, prefix string, depth int) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || depth > 3 {
		return nil
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		if inner := fieldsOfType(f.Type, prefix+name+".", depth+1); len(inner) > 0 {
			out = append(out, inner...)
			continue
		}
		out = append(out, prefix+name)
	}
	return out
}
