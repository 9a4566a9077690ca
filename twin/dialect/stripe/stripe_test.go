package stripe

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/world"
)

func customers(n int) []*world.Entity {
	out := make([]*world.Entity, n)
	for i := range out {
		id := fmt.Sprintf("cus_%d", i+1)
		out[i] = &world.Entity{ID: id}
		out[i].SetBody([]byte(`{"id":"` + id + `"}`))
	}
	return out
}

// TestList: Stripe's envelope, limit, cursors and its refusals of them.
func TestList(t *testing.T) {
	all := customers(4)
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string
		param  string // of the refusal, when refused
		words  string
	}{
		{"first page", map[string]any{"limit": "2"}, `{"object":"list","data":[{"id":"cus_1"},{"id":"cus_2"}],"has_more":true,"url":"/v1/customers"}`, "", ""},
		{"after a cursor", map[string]any{"limit": "2", "starting_after": "cus_2"}, `{"object":"list","data":[{"id":"cus_3"},{"id":"cus_4"}],"has_more":false,"url":"/v1/customers"}`, "", ""},
		{"before a cursor", map[string]any{"limit": "1", "ending_before": "cus_3"}, `{"object":"list","data":[{"id":"cus_2"}],"has_more":true,"url":"/v1/customers"}`, "", ""},
		{"the default limit", map[string]any{}, `{"object":"list","data":[{"id":"cus_1"},{"id":"cus_2"},{"id":"cus_3"},{"id":"cus_4"}],"has_more":false,"url":"/v1/customers"}`, "", ""},
		{"limit zero", map[string]any{"limit": "0"}, "", "limit", "Invalid limit: must be an integer between 1 and 100"},
		{"limit past 100", map[string]any{"limit": "101"}, "", "limit", "Invalid limit: must be an integer between 1 and 100"},
		{"both cursors", map[string]any{"starting_after": "cus_1", "ending_before": "cus_3"}, "", "ending_before", "You may only specify one of these parameters: ending_before, starting_after."},
		{"an unknown cursor", map[string]any{"starting_after": "cus_9"}, "", "starting_after", "No such customer: 'cus_9'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, refused := New().List(dialect.ListQuery{Params: tc.params, Items: all, Object: "customer", URL: "/v1/customers"})
			switch {
			case tc.param != "":
				if refused == nil || refused.Param != tc.param || refused.Message != tc.words {
					t.Errorf("want refused at %s with %q, have %+v", tc.param, tc.words, refused)
				}
			case refused != nil:
				t.Errorf("want a page, have refused %+v", refused)
			case string(page.Body) != tc.want || page.Link != "":
				t.Errorf("want %s and no Link, have %s (Link %q)", tc.want, page.Body, page.Link)
			}
		})
	}
	// A list the twin declares a bare array pages by page number.
	page, _ := New().List(dialect.ListQuery{Params: map[string]any{"per_page": "1"}, Items: all, Array: true, Here: dialect.Here{Host: "h", Path: "/v1/x"}})
	if want := `[{"id":"cus_1"}]`; string(page.Body) != want || page.Link == "" {
		t.Errorf("array list: want %s with a Link header, have %s (Link %q)", want, page.Body, page.Link)
	}
}

// TestValueRules: metadata="" empties the metadata, any other field=""
// unsets it; a list parameter goes into a list envelope's data; expand is
// reserved.
func TestValueRules(t *testing.T) {
	d := New()
	if v, ok := d.Cleared("metadata").(*object.Object); !ok || v.Len() != 0 {
		t.Errorf(`Cleared("metadata"): want an empty object, have %v`, d.Cleared("metadata"))
	}
	if v := d.Cleared("description"); v != nil {
		t.Errorf(`Cleared("description"): want nil, have %v`, v)
	}
	env, err := object.Parse([]byte(`{"object":"list","data":[],"total_count":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if data, count, ok := d.ListField(env); !ok || data != "data" || count != "total_count" {
		t.Errorf("ListField of a list envelope: want data, total_count, have %q, %q, %v", data, count, ok)
	}
	plain, _ := object.Parse([]byte(`{"object":"address","data":[]}`))
	if _, _, ok := d.ListField(plain); ok {
		t.Error("ListField of an object that is no list envelope: want none")
	}
	if !d.Reserved("expand") || d.Reserved("email") {
		t.Error("Reserved: want expand alone")
	}
	if _, ok := d.FromString("head", env, "main"); ok {
		t.Error("FromString: Stripe sets no object from a string")
	}
}

// TestCredential: Bearer and the Basic user name; not GitHub's token.
func TestCredential(t *testing.T) {
	d := New()
	if c, ok := d.Credential("Bearer sk_test_1.wraith.a"); !ok || c.Token != "sk_test_1.wraith.a" {
		t.Errorf("Bearer: have %+v %v", c, ok)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("sk_test_1.wraith.b:"))
	if c, ok := d.Credential(basic); !ok || !c.Basic || c.User != "sk_test_1.wraith.b" {
		t.Errorf("Basic: have %+v %v", c, ok)
	}
	if _, ok := d.Credential("token ghp_1.wraith.c"); ok {
		t.Error("token: Stripe takes no token scheme")
	}
}
