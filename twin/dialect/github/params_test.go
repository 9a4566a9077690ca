package github

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/canon"
)

// TestParamsJSONWhateverTheType: a body is read as JSON whatever its
// Content-Type says, as GitHub reads it; a body of another media type is
// no parameters; one GitHub would read that is no JSON object is refused
// with GitHub's sentence.
func TestParamsJSONWhateverTheType(t *testing.T) {
	tests := []struct {
		name, ctype, body, query string
		want                     string // the parameters as JSON; "" when refused
		refused                  string // the start of the error
	}{
		{"curl -d", "application/x-www-form-urlencoded", `{"title":"t","labels":["bug"]}`, "", `{"labels":["bug"],"title":"t"}`, ""},
		{"no Content-Type", "", `{"title":"t"}`, "", `{"title":"t"}`, ""},
		{"JSON with a charset", "application/json; charset=utf-8", `{"n":1}`, "", `{"n":1}`, ""},
		{"vendor JSON", "application/vnd.github+json", `{"n":1}`, "", `{"n":1}`, ""},
		{"the query beside the body", "application/x-www-form-urlencoded", `{"title":"t"}`, "per_page=2", `{"per_page":"2","title":"t"}`, ""},
		{"no body", "application/x-www-form-urlencoded", ``, "state=open", `{"state":"open"}`, ""},
		{"whitespace only", "application/json", " \n", "", `{}`, ""},
		{"text is no parameters", "text/plain", `# Hello`, "", `{}`, ""},
		{"a form", "application/x-www-form-urlencoded", `title=t`, "", "", problemsParsingJSON},
		{"broken JSON", "application/json", `{"title":`, "", "", problemsParsingJSON},
		{"an array", "application/json", `["title"]`, "", "", problemsParsingJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Dialect{}.Params(tt.ctype, []byte(tt.body), tt.query)
			if tt.refused != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.refused) {
					t.Fatalf("want an error starting %q, have %v %v", tt.refused, p, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			have, _ := json.Marshal(p)
			if string(have) != tt.want {
				t.Errorf("want %s, have %s", tt.want, have)
			}
		})
	}
}

// TestParamsNumberError: a number no float holds is still canon's
// NumberError, which names its parameter.
func TestParamsNumberError(t *testing.T) {
	_, err := Dialect{}.Params("application/x-www-form-urlencoded", []byte(`{"n":1e999}`), "")
	var ne *canon.NumberError
	if !errors.As(err, &ne) || ne.Param != "n" {
		t.Fatalf("want a NumberError naming n, have %v", err)
	}
}

// TestFlatParamsLeavesJSONToParams: a body GitHub reads as JSON never
// takes the flat path, so a JSON body said to be a form is not read as
// one form key; a request with no body is read as canon reads it.
func TestFlatParamsLeavesJSONToParams(t *testing.T) {
	if flat, ok := (Dialect{}).FlatParams(nil, "application/x-www-form-urlencoded", []byte(`{"title":"t"}`), ""); ok {
		t.Errorf("a JSON body said to be a form: want no flat parameters, have %v", flat)
	}
	have, ok := Dialect{}.FlatParams(nil, "application/x-www-form-urlencoded", nil, "")
	want, wantOK := canon.FlatParams(nil, "application/x-www-form-urlencoded", nil, "")
	if ok != wantOK || len(have) != len(want) {
		t.Errorf("no body: want canon's %v %v, have %v %v", want, wantOK, have, ok)
	}
}
