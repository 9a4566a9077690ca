package fault

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/wraithdev/wraith/twin/format"
)

// testTwin is a twin with one route, POST and GET /v1/things/{id}, and an
// [errors.api_error] unless bare.
func testTwin(bare bool, own ...format.FaultProfile) Twin {
	errs := &format.Errors{}
	if !bare {
		errs.Extra = map[string]*format.Answer{"api_error": {Status: 502, Body: `{ "error": {"type": "api_error"} }`}}
	}
	return Twin{
		Name:     "t",
		Profiles: own,
		Errors:   errs,
		HasRoute: func(method, tmpl string) bool {
			return tmpl == "/v1/things/{id}" && (method == "" || method == "GET" || method == "POST")
		},
		Shape: func(a *format.Answer, status int) (int, []byte, error) {
			if a.Status != 0 {
				status = a.Status
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, []byte(a.Body)); err != nil {
				return 0, nil, err
			}
			return status, buf.Bytes(), nil
		},
	}
}

func mustCompile(tb testing.TB, t Twin) *Set {
	tb.Helper()
	s, err := Compile(t)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
