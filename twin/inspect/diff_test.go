package inspect_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/inspect"
)

// edited returns rulesTwin with files replaced ("" deletes one).
func edited(edits map[string]string) fstest.MapFS {
	m := rulesTwin()
	for k, v := range edits {
		if v == "" {
			delete(m, k)
			continue
		}
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

// summary renders the parts of a diff a test looks at, one line each.
func summary(d *inspect.Diff) []string {
	var out []string
	for _, c := range d.Manifest {
		out = append(out, "manifest "+c.Field+" "+string(c.A)+" -> "+string(c.B))
	}
	for _, r := range d.Routes.Added {
		out = append(out, "route + "+r.Method+" "+r.Template)
	}
	for _, r := range d.Routes.Removed {
		out = append(out, "route - "+r.Method+" "+r.Template)
	}
	for _, r := range d.Routes.Changed {
		out = append(out, "route ~ "+r.Method+" "+r.Template+" "+describe(r.A)+" -> "+describe(r.B))
	}
	for _, r := range d.Resources.Added {
		out = append(out, "resource + "+r)
	}
	for _, r := range d.Resources.Removed {
		out = append(out, "resource - "+r)
	}
	for _, r := range d.Resources.Changed {
		var fields []string
		for _, c := range r.Changes {
			fields = append(fields, c.Field)
		}
		out = append(out, "resource ~ "+r.Name+" "+strings.Join(fields, ","))
	}
	for _, e := range d.Exchanges.Added {
		out = append(out, "exchange + "+e.Exchange+" "+e.Method+" "+e.Path)
	}
	for _, e := range d.Exchanges.Removed {
		out = append(out, "exchange - "+e.Exchange+" "+e.Method+" "+e.Path)
	}
	for _, e := range d.Exchanges.Changed {
		out = append(out, "exchange ~ "+e.Exchange+" "+strings.Join(e.Parts, ","))
	}
	for _, f := range d.Fixtures.Added {
		out = append(out, "fixture + "+f)
	}
	for _, f := range d.Fixtures.Removed {
		out = append(out, "fixture - "+f)
	}
	for _, f := range d.Fixtures.Changed {
		line := "fixture ~ " + f.Name + " +" + strings.Join(f.Added, ",") + " -" + strings.Join(f.Removed, ",") + " ~" + strings.Join(f.Changed, ",")
		if f.Description != nil {
			line += " description"
		}
		out = append(out, line)
	}
	return out
}

func describe(r inspect.Route) string {
	return strings.Join(strings.Fields(r.Kind+" "+r.Resource+" "+r.Operation+" "+r.Origin), " ")
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edits map[string]string
		want  []string
	}{
		{"identical", nil, nil},
		{"other layout only", map[string]string{
			"twin.toml": strings.Replace(rulesManifest, `skeleton = '{"id":"","object":"widget"}'`, "skeleton = '''\n{ \"id\": \"\",\n  \"object\": \"widget\" }'''", 1),
		}, nil},
		{"manifest", map[string]string{
			"twin.toml": strings.Replace(rulesManifest, `name = "rules"`, "name = \"rules\"\nupstream = \"https://api.example.test\"\n[pii]\nverbatim = [\"name\"]", 1),
		}, []string{`manifest upstream "" -> "https://api.example.test"`, `manifest pii.verbatim [] -> ["name"]`}},
		{"resource", map[string]string{
			"twin.toml": strings.NewReplacer(
				`delete = "none"`, `delete = "tombstone"`+"\n"+`deleted_body = '{"id":"{id}","deleted":true}'`,
				`name = "spin"`, "name = \"stop\"\nfrom = [\"spinning\"]",
				`id_prefix = "wid_"`, `id_prefix = "w_"`,
			).Replace(rulesManifest),
		}, []string{
			// The recorded spin is now a plain route of its own, and the
			// recorded DELETE is answered by the new delete route.
			"route + POST /v1/widgets/wid_1/spin",
			"route + DELETE /v1/widgets/{id}",
			"route + POST /v1/widgets/{id}/stop",
			"route - DELETE /v1/widgets/wid_1",
			"route - POST /v1/widgets/{id}/spin",
			"resource ~ widget id_prefix,delete,deleted_body,actions.stop,actions.spin",
		}},
		{"resources added and removed", map[string]string{
			"twin.toml": strings.Replace(rulesManifest, `name = "widget"`, `name = "gadget"`, 1),
		}, []string{
			"route ~ GET /v1/widgets resource widget list -> resource gadget list",
			"route ~ POST /v1/widgets resource widget create -> resource gadget create",
			"route ~ GET /v1/widgets/{id} resource widget retrieve -> resource gadget retrieve",
			"route ~ PATCH /v1/widgets/{id} resource widget update -> resource gadget update",
			"route ~ PUT /v1/widgets/{id} resource widget update -> resource gadget update",
			"route ~ POST /v1/widgets/{id}/spin action widget spin -> action gadget spin",
			"resource + gadget",
			"resource - widget",
		}},
		{"route changes kind", map[string]string{
			"twin.toml": strings.Replace(rulesManifest, "path = \"/v1/balance\"", "path = \"/v1/events/{id}\"", 1),
		}, []string{
			"route + GET /v1/events/{id}",
			"route - GET /v1/events/evt_1",
			// Still recorded, no longer declared.
			"route ~ GET /v1/balance plain declared -> plain recorded",
		}},
		{"exchanges", map[string]string{
			"recordings/a/1.json": "",
			"recordings/a/0.json": string(exchange("GET", "/v1/widgets/wid_1", "expand[]=y", 200, `{"id":"wid_1","object":"widget","color":"red"}`).Data),
			"recordings/a/5.json": string(exchange("GET", "/v1/widgets", "", 200, `{"object":"list","data":[]}`).Data),
			"recordings/b/2.json": string(exchange("DELETE", "/v1/widgets/wid_1", "", 405, "{\n  \"error\": {}\n}").Data),
		}, []string{
			"exchange + a/5 GET /v1/widgets",
			"exchange - a/1 GET /v1/widgets/wid_1",
			"exchange ~ a/0 request.query,response.body",
		}},
		{"fixtures", map[string]string{
			"fixtures/three.json": `{"format":1,"description":"d2","entities":[{"id":"wid_1","object":"widget","color":"red"},{"id":"wid_3","object":"widget"},{"id":"evt_1","object":"event"}]}`,
			"fixtures/empty.json": "",
			"fixtures/new.json":   `{"format":1,"entities":[]}`,
		}, []string{"fixture + new", "fixture - empty", "fixture ~ three +wid_3 -wid_2 ~wid_1 description"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := load(t, rulesTwin()), load(t, edited(tc.edits))
			d, err := inspect.Compare(a, b)
			if err != nil {
				t.Fatal(err)
			}
			have := summary(d)
			if strings.Join(have, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("want\n  %s\nhave\n  %s", strings.Join(tc.want, "\n  "), strings.Join(have, "\n  "))
			}
			if d.Empty() != (len(tc.want) == 0) {
				t.Errorf("Empty: want %v, have %v", len(tc.want) == 0, d.Empty())
			}
			if same := tc.edits == nil; d.Same != same {
				t.Errorf("Same: want %v, have %v (digests %s, %s)", same, d.Same, d.A.Digest, d.B.Digest)
			}
			if _, err := json.Marshal(d); err != nil {
				t.Errorf("json.Marshal: %v", err)
			}
		})
	}
}

func TestCompareEmbedded(t *testing.T) {
	checkout, billing := loadEmbedded(t, "checkout"), loadEmbedded(t, "billing")
	d, err := inspect.Compare(checkout, billing)
	if err != nil {
		t.Fatal(err)
	}
	if d.Same || d.Empty() {
		t.Fatalf("checkout vs billing: want differences, have Same=%v Empty=%v", d.Same, d.Empty())
	}
	if len(d.Exchanges.Added) != len(billing.Exchanges) || len(d.Exchanges.Removed) != len(checkout.Exchanges) {
		t.Errorf("exchanges: want every billing one added (%d) and every checkout one removed (%d), have %d and %d",
			len(billing.Exchanges), len(checkout.Exchanges), len(d.Exchanges.Added), len(d.Exchanges.Removed))
	}
	back, err := inspect.Compare(billing, checkout)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Routes.Added) != len(d.Routes.Removed) || len(back.Resources.Added) != len(d.Resources.Removed) {
		t.Errorf("Compare(b, a) should mirror Compare(a, b): routes %d vs %d, resources %d vs %d",
			len(back.Routes.Added), len(d.Routes.Removed), len(back.Resources.Added), len(d.Resources.Removed))
	}
}
