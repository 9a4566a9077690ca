package canon

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckLimits(t *testing.T) {
	nested := func(open, close string, levels int) string {
		return strings.Repeat(open, levels) + strings.Repeat(close, levels)
	}
	pairs := func(n int) string {
		return strings.TrimSuffix(strings.Repeat("a[]=1&", n), "&")
	}
	jsonArray := func(n int) string {
		return `{"a":[` + strings.TrimSuffix(strings.Repeat("0,", n), ",") + `]}`
	}
	deepKey := func(levels int) string { return "a" + strings.Repeat("[b]", levels) + "=1" }
	tests := []struct {
		name, ctype, body, query string
		want                     string // LimitError code, or "" for none
	}{
		{"small form", "application/x-www-form-urlencoded", "a=1&b[c]=2", "x=1", ""},
		{"form at the limit", "application/x-www-form-urlencoded", pairs(MaxParams), "", ""},
		{"form past the limit", "application/x-www-form-urlencoded", pairs(MaxParams + 1), "", LimitParams},
		{"query and form together past it", "application/x-www-form-urlencoded", pairs(MaxParams), "x=1", LimitParams},
		{"json at the limit", "application/json", jsonArray(MaxParams - 1), "", ""},
		{"json array past the limit", "application/json", jsonArray(MaxParams), "", LimitParams},
		{"commas inside strings do not count", "application/json", `{"a":"` + strings.Repeat(",", 2*MaxParams) + `"}`, "", ""},
		{"escaped quotes stay inside strings", "application/json", `{"a":"\",[[[,"}`, "", ""},
		{"empty containers count nothing", "application/json", `{"a":[],"b":{}, "c":[ ]}`, "", ""},
		{"json at the depth limit", "application/json", `{"a":` + nested("[", "]", MaxDepth) + `}`, "", ""},
		{"json past the depth limit", "application/json", `{"a":` + nested("[", "]", MaxDepth+1) + `}`, "", LimitDepth},
		{"form key at the depth limit", "application/x-www-form-urlencoded", deepKey(MaxDepth), "", ""},
		{"form key past the depth limit", "application/x-www-form-urlencoded", deepKey(MaxDepth + 1), "", LimitDepth},
		{"escaped brackets count", "application/x-www-form-urlencoded", "a" + strings.Repeat("%5Bb%5d", MaxDepth+1) + "=1", "", LimitDepth},
		{"query key past the depth limit", "", "", deepKey(MaxDepth + 1), LimitDepth},
		{"other media types carry no parameters", "text/plain", pairs(MaxParams + 1), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckLimits(tt.ctype, []byte(tt.body), tt.query)
			var le *LimitError
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("want no error, have %v", err)
			case tt.want != "" && !errors.As(err, &le):
				t.Fatalf("want a %s LimitError, have %v", tt.want, err)
			case tt.want != "" && le.Code != tt.want:
				t.Fatalf("want code %s, have %s (%v)", tt.want, le.Code, err)
			}
			if tt.want == "" {
				// What passes the check must be what Params accepts.
				if _, err := Params(tt.ctype, []byte(tt.body), tt.query); err != nil {
					t.Errorf("CheckLimits passed it, but Params refuses: %v", err)
				}
			}
		})
	}
}

// TestCheckLimitsAgreesWithParams: one level past what CheckLimits allows,
// Params refuses too, so the two limits are the same limit.
func TestCheckLimitsAgreesWithParams(t *testing.T) {
	body := `{"a":` + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + `}`
	if _, err := Params("application/json", []byte(body), ""); err == nil {
		t.Error("Params accepts a JSON body one level deeper than CheckLimits allows")
	}
}

// TestCheckLimitsNoAlloc: the check runs on every request before its
// session's lock, and reads a form body without copying it.
func TestCheckLimitsNoAlloc(t *testing.T) {
	body := []byte("email=jenny%40example.com&name=Jenny+Rosen&description=a+description+longer+than+a+stack+buffer&metadata%5Border%5D=42")
	allocs := testing.AllocsPerRun(100, func() {
		if err := CheckLimits("application/x-www-form-urlencoded", body, "expand[]=customer"); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("want no allocation, have %v", allocs)
	}
}
