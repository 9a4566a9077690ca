package openapi_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/reqschema"
)

// requestsOf indexes a twin's request schemas, so that a conformance test
// sends each operation a request its provider accepts.
func requestsOf(tb testing.TB, tw *format.Twin) *reqschema.Index {
	tb.Helper()
	if tw.Requests == nil {
		tb.Fatalf("twin %s has no %s: run make twins", tw.Name(), format.RequestsFile)
	}
	idx, err := reqschema.NewIndex(tw.Requests)
	if err != nil {
		tb.Fatal(err)
	}
	return idx
}

// minimal is the smallest value s accepts: an object's required members,
// an array of one, an enum's first value, the first alternative that is
// not only "".
func minimal(s *reqschema.Schema) any {
	if s == nil {
		return "x"
	}
	for _, alt := range s.AnyOf {
		if (s.Type == "" || alt.Type == s.Type) && !slices.Equal(alt.Enum, []string{""}) {
			return minimal(alt)
		}
	}
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if e != "" {
				return e
			}
		}
	}
	switch s.Type {
	case "object":
		o := map[string]any{}
		for _, name := range s.Required {
			o[name] = minimal(s.Properties[name])
		}
		return o
	case "array":
		return []any{minimal(s.Items)}
	case "integer", "number":
		return json.Number("1")
	case "boolean":
		return true
	}
	if s.Format == "decimal" {
		return "1"
	}
	return "x"
}

// minimalForm is minimal(s) as a form body, in Stripe's bracketed names.
func minimalForm(s *reqschema.Schema) string {
	v := url.Values{}
	var add func(name string, x any)
	add = func(name string, x any) {
		switch t := x.(type) {
		case map[string]any:
			for k, el := range t {
				add(name+"["+k+"]", el)
			}
		case []any:
			for i, el := range t {
				add(name+"["+strconv.Itoa(i)+"]", el)
			}
		case json.Number:
			v.Set(name, string(t))
		case bool:
			v.Set(name, strconv.FormatBool(t))
		case string:
			v.Set(name, t)
		}
	}
	if o, ok := minimal(s).(map[string]any); ok {
		for k, el := range o {
			add(k, el)
		}
	}
	return v.Encode()
}

// minimalJSON is minimal(s) as a JSON body.
func minimalJSON(s *reqschema.Schema) string {
	b, _ := json.Marshal(minimal(s))
	return string(b)
}
