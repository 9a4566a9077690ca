package rest_test

import (
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/rest"
	"github.com/wraithdev/wraith/twin/object"
)

// TestFromString: a string sent where the entity holds an object names
// that object by the first key of rest.KeyNames it has, the rest of it
// kept; an object with no key is not named by a string.
func TestFromString(t *testing.T) {
	for _, c := range []struct {
		name, cur, sent string
		want            string // "" for not read
	}{
		{"gid", `{"gid":"1","resource_type":"workspace","name":"Acme"}`, "777", `{"gid":"777","resource_type":"workspace","name":"Acme"}`},
		{"id before slug, a number kept one", `{"slug":"nyc1","id":5}`, "9", `{"slug":"nyc1","id":9}`},
		{"a number key sent as text that is no number", `{"id":5}`, "me", `{"id":"me"}`},
		{"slug", `{"slug":"nyc1","name":"New York 1"}`, "ams3", `{"slug":"ams3","name":"New York 1"}`},
		{"no key", `{"name":"Acme"}`, "777", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cur, err := object.Parse([]byte(c.cur))
			if err != nil {
				t.Fatal(err)
			}
			o, ok := rest.New().FromString("field", cur, c.sent)
			if c.want == "" {
				if ok {
					t.Fatalf("want no object, have %s", o.AppendJSON(nil))
				}
				return
			}
			if !ok {
				t.Fatalf("want %s, have none", c.want)
			}
			if have := string(o.AppendJSON(nil)); have != c.want {
				t.Errorf("want %s, have %s", c.want, have)
			}
			if before := string(cur.AppendJSON(nil)); before != c.cur {
				t.Errorf("the entity's object changed: want %s, have %s", c.cur, before)
			}
		})
	}
}
