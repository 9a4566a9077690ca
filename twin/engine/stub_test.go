package engine

import (
	"testing"

	"github.com/wraithdev/wraith/twin/object"
)

// TestStubAsNumber: "$.field as number" answers a string field whose
// text is a JSON number as that number, and any other field as it is.
func TestStubAsNumber(t *testing.T) {
	o := object.New(4)
	o.Set("id", "10000")
	o.Set("key", "EX")
	o.Set("odd", "12 apples")
	o.Set("n", 7)
	tmpl := map[string]any{"id": "$.id as number", "key": "$.key as number", "odd": "$.odd as number", "n": "$.n as number", "self": "/project/{id}"}
	want := `{"id":10000,"key":"EX","n":7,"odd":"12 apples","self":"/project/10000"}`
	if have := string(stub(tmpl, o, nil)); have != want {
		t.Errorf("stub: want %s, have %s", want, have)
	}
}
