package apierr

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/canon"
)

// TestEveryCodeHasStatus reads codes.go, so a constant added without a
// row in the table fails here rather than answering 500.
func TestEveryCodeHasStatus(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Code]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for i, name := range vs.Names {
				v, err := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatalf("%s: %v", name.Name, err)
				}
				code := Code(v)
				if other, dup := seen[code]; dup {
					t.Errorf("%s and %s are both %q", other, name.Name, v)
				}
				seen[code] = name.Name
				if _, ok := statuses[code]; !ok {
					t.Errorf("%s (%q) has no status in the table", name.Name, v)
				}
				if want := strings.ToLower(v); v != want || strings.Contains(v, "_") {
					t.Errorf("%s: code %q is not kebab case", name.Name, v)
				}
			}
		}
	}
	if len(seen) < 35 {
		t.Fatalf("found %d code constants in codes.go; the parse missed some", len(seen))
	}
	if len(statuses) != len(seen) {
		t.Errorf("the table has %d codes, codes.go declares %d: a row names no constant", len(statuses), len(seen))
	}
}

// TestCanonLimitCodes: canon reports its limits by code; they are answered
// under the same codes.
func TestCanonLimitCodes(t *testing.T) {
	for _, c := range []string{canon.LimitParams, canon.LimitDepth} {
		if _, ok := statuses[Code(c)]; !ok {
			t.Errorf("canon's limit code %q has no status here", c)
		}
	}
}

type view struct {
	Session string  `json:"session"`
	Fixture *string `json:"fixture"`
}

// TestWireBytes pins the bytes of the error shape: these are what
// engine.errorBody and the recorder wrote before this package existed.
func TestWireBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  *Error
		want string
	}{{
		name: "details",
		err: &Error{Code: SessionProvisionConflict, Message: "a <b> & \"c\" \b\f\u2028 \xff", Details: Details{
			"session": "s1", "available": []string{"x<y", "z"}, "limit": 10, "heap": uint64(7), "ratio": 0.5,
			"nested": map[string]any{"b": 1.25, "a": []any{"q", 2.0}}, "existing": view{Session: "s1"}, "offset": int64(3), "none": nil, "ok": true,
		}},
		want: `{"error":{"code":"session-provision-conflict","message":"a <b> & \"c\" \u0008\u000c\u2028 \ufffd","available":["x\u003cy","z"],"existing":{"session":"s1","fixture":null},"heap":7,"limit":10,"nested":{"a":["q",2],"b":1.25},"none":null,"offset":3,"ok":true,"ratio":0.5,"session":"s1"}}`,
	}, {
		name: "recorder",
		err:  New(UpstreamUnreachable, "the upstream https://api.example.com did not answer: dial tcp: connection refused"),
		want: `{"error":{"code":"upstream-unreachable","message":"the upstream https://api.example.com did not answer: dial tcp: connection refused"}}`,
	}, {
		name: "with",
		err:  Errorf(RouteMiss, "no route of twin %s matches %s %s", "checkout", "GET", "/v1/nope").With("type", "wraith_miss"),
		want: `{"error":{"code":"route-miss","message":"no route of twin checkout matches GET /v1/nope","type":"wraith_miss"}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if have := string(tc.err.Body()); have != tc.want {
				t.Errorf("want %s\nhave %s", tc.want, have)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		err        *Error
		status     int
		wantLength bool
	}{
		{New(SessionLimit, "too many sessions"), http.StatusServiceUnavailable, false},
		{New(RouteMiss, strings.Repeat("x", 3000)), http.StatusNotImplemented, true},
		{New(Code("no-such-code"), "a code missing from the table"), http.StatusInternalServerError, false},
	} {
		t.Run(string(tc.err.Code), func(t *testing.T) {
			rec := httptest.NewRecorder()
			rec.Header().Set("Allow", "GET")
			Write(rec, tc.err)
			if rec.Code != tc.status {
				t.Errorf("status: want %d, have %d", tc.status, rec.Code)
			}
			if have := rec.Header().Get("Content-Type"); have != "application/json" {
				t.Errorf("Content-Type: want application/json, have %q", have)
			}
			if have := rec.Header().Get("Allow"); have != "GET" {
				t.Errorf("a header set before Write: want GET, have %q", have)
			}
			if have := rec.Body.String(); have != string(tc.err.Body()) {
				t.Errorf("body: want %s, have %s", tc.err.Body(), have)
			}
			_, has := rec.Header()["Content-Length"]
			if has != tc.wantLength {
				t.Errorf("Content-Length set: want %v, have %v", tc.wantLength, has)
			}
		})
	}
}
