package stripe

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/world"
)

func searchItems(t *testing.T, bodies ...string) []*world.Entity {
	t.Helper()
	var out []*world.Entity
	for _, b := range bodies {
		var m struct{ ID string }
		if err := json.Unmarshal([]byte(b), &m); err != nil {
			t.Fatal(err)
		}
		ent := &world.Entity{ID: m.ID, Resource: "customer"}
		ent.SetBody([]byte(b))
		out = append(out, ent)
	}
	return out
}

func TestSearch(t *testing.T) {
	items := searchItems(t,
		`{"id":"cus_1","email":"jenny@example.com","name":"Jenny Rosen","balance":500,"metadata":{"order":"6735"},"delinquent":false}`,
		`{"id":"cus_2","email":"bob@example.com","name":"Bob","balance":0,"metadata":{},"delinquent":true}`,
		`{"id":"cus_3","email":null,"name":"Jenna","balance":1500,"metadata":{"order":"1"},"delinquent":false}`,
	)
	for _, tc := range []struct {
		query string
		want  string // ids matched, in order; or the refusal's message
	}{
		{`email:'JENNY@example.com'`, "cus_1"},
		{`email:"bob@example.com"`, "cus_2"},
		{`-email:'bob@example.com'`, "cus_1 cus_3"},
		{`email:null`, "cus_3"},
		{`-email:null`, "cus_1 cus_2"},
		{`balance>100`, "cus_1 cus_3"},
		{`balance>=1500`, "cus_3"},
		{`balance<=0`, "cus_2"},
		{`name~'jen'`, "cus_1 cus_3"},
		{`metadata['order']:'6735'`, "cus_1"},
		{`metadata["order"]:'1' OR email:'bob@example.com'`, "cus_2 cus_3"},
		{`name~'jen' AND balance>1000`, "cus_3"},
		{`delinquent:'true'`, "cus_2"},
		{`email:'nobody@example.com'`, ""},
		{``, "Missing required param: query."},
		{`email`, `Invalid query: "email" is not a field, an operator and a value`},
		{`name~'je'`, "Invalid query: a substring match (~) needs at least three characters"},
		{`balance>'many'`, "Invalid query: > compares numbers"},
		{`email:'a' AND name:'b' OR balance>1`, "Invalid query: a query cannot mix AND and OR"},
		{`email:'a' AND`, "Invalid query: it ends with AND"},
		{`name~'jen' balance>1000`, "cus_3"},
		{`name~'jen' and balance>1000`, "cus_3"},
		{`email:'bob@example.com' or balance>1000`, "cus_2 cus_3"},
		{`name~'jen' balance>1000 OR email:'x'`, "Invalid query: a query cannot mix AND and OR"},
		{`OR email:'x'`, "Invalid query: OR must stand between two clauses"},
		{`email:'x' AND OR name:'y'`, "Invalid query: OR must stand between two clauses"},
		{`email:'a`, "Invalid query: a quoted value is not closed"},
		{`email:jenny`, "Invalid query: the value of email must be quoted, a number or null"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			params := map[string]any{"query": tc.query, "expand": []any{"total_count"}}
			ans, refused := search(dialect.ListQuery{Params: params, Items: items, URL: "/v1/customers/search", Search: true})
			if refused != nil {
				if refused.Message != tc.want || refused.Param != "query" {
					t.Fatalf("want %q, have refusal %+v", tc.want, refused)
				}
				return
			}
			var res struct {
				Object     string
				Data       []struct{ ID string }
				TotalCount int  `json:"total_count"`
				HasMore    bool `json:"has_more"`
				URL        string
			}
			if err := json.Unmarshal(ans.Body, &res); err != nil {
				t.Fatalf("%v: %s", err, ans.Body)
			}
			var ids []string
			for _, d := range res.Data {
				ids = append(ids, d.ID)
			}
			if have := strings.Join(ids, " "); have != tc.want || res.Object != "search_result" || res.TotalCount != len(ids) || res.URL != "/v1/customers/search" {
				t.Errorf("want %q, have %q (%s)", tc.want, have, ans.Body)
			}
		})
	}
}

func TestSearchPages(t *testing.T) {
	items := searchItems(t, `{"id":"cus_1","balance":1}`, `{"id":"cus_2","balance":2}`, `{"id":"cus_3","balance":3}`)
	page := ""
	var seen []string
	for range 4 {
		params := map[string]any{"query": "balance>0", "limit": "2", "expand": "total_count"}
		if page != "" {
			params["page"] = page
		}
		ans, refused := search(dialect.ListQuery{Params: params, Items: items, Search: true})
		if refused != nil {
			t.Fatal(refused)
		}
		var res struct {
			Data     []struct{ ID string }
			NextPage *string `json:"next_page"`
			HasMore  bool    `json:"has_more"`
			Total    int     `json:"total_count"`
		}
		if err := json.Unmarshal(ans.Body, &res); err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Data {
			seen = append(seen, d.ID)
		}
		if res.Total != 3 || res.HasMore != (res.NextPage != nil) {
			t.Fatalf("total %d, has_more %v, next_page %v", res.Total, res.HasMore, res.NextPage)
		}
		if res.NextPage == nil {
			break
		}
		page = *res.NextPage
	}
	if have := strings.Join(seen, " "); have != "cus_1 cus_2 cus_3" {
		t.Errorf("pages: want cus_1 cus_2 cus_3, have %s", have)
	}
	if _, refused := search(dialect.ListQuery{Params: map[string]any{"query": "balance>0", "page": "x"}, Items: items, Search: true}); refused == nil || refused.Param != "page" {
		t.Errorf("a page token not ours: want a refusal naming page, have %+v", refused)
	}
}

// TestSearchTotalCountWhenExpanded: Stripe answers total_count only when
// the request expands it (docs.stripe.com/api/pagination/search), in any
// of the forms a client sends expand in.
func TestSearchTotalCountWhenExpanded(t *testing.T) {
	items := searchItems(t, `{"id":"cus_1","balance":1}`, `{"id":"cus_2","balance":2}`)
	for _, tc := range []struct {
		name   string
		expand any
		want   string // the total_count member, "" for none
	}{
		{"not asked", nil, ""},
		{"expand[]", []any{"total_count"}, `"total_count":2`},
		{"expand", "total_count", `"total_count":2`},
		{"another path only", []any{"data.customer"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"query": "balance>0"}
			if tc.expand != nil {
				params["expand"] = tc.expand
			}
			ans, refused := search(dialect.ListQuery{Params: params, Items: items, Search: true})
			if refused != nil {
				t.Fatal(refused)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(ans.Body, &m); err != nil {
				t.Fatal(err)
			}
			have := ""
			if v, ok := m["total_count"]; ok {
				have = `"total_count":` + string(v)
			}
			if have != tc.want {
				t.Errorf("want %q, have %q (%s)", tc.want, have, ans.Body)
			}
		})
	}
}
