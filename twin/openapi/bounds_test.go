package openapi_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// fanOut is a description whose one operation answers components.schemas.A0,
// and each of whose schemas A0..A(levels-1) has width required properties
// referring to the next (the last to A0 again when self is set, which is
// the one-schema fan-out when levels is 1). example, when set, is the last
// level's example, a value the sampler copies wherever that schema is.
func fanOut(levels, width int, self bool, example string) []byte {
	var schemas []string
	for l := 0; l < levels; l++ {
		next := fmt.Sprintf("A%d", l+1)
		if l == levels-1 {
			if !self {
				body := `{"type":"string"}`
				if example != "" {
					body = `{"type":"object","example":` + example + `}`
				}
				schemas = append(schemas, fmt.Sprintf(`"A%d":%s`, l+1, body))
			}
			if self {
				next = "A0"
			}
		}
		var req, props []string
		for i := 0; i < width; i++ {
			req = append(req, fmt.Sprintf(`"p%d"`, i))
			props = append(props, fmt.Sprintf(`"p%d":{"$ref":"#/components/schemas/%s"}`, i, next))
		}
		schemas = append(schemas, fmt.Sprintf(`"A%d":{"type":"object","required":[%s],"properties":{%s}}`, l, strings.Join(req, ","), strings.Join(props, ",")))
	}
	return []byte(`{"openapi":"3.0.3","info":{"title":"Fan","version":"1"},
"paths":{"/as":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A0"}}}}}}}},
"components":{"schemas":{` + strings.Join(schemas, ",") + `}}}`)
}

// TestImportBoundsFanOut imports descriptions of a few hundred bytes whose
// samples would be millions of nodes (the sampler bounded depth alone, so
// these took an import past 3 GiB): each is refused with an error naming
// the schema and how it fans out, and a fan-out within the budgets still
// imports.
func TestImportBoundsFanOut(t *testing.T) {
	big := `{"s":"` + strings.Repeat("x", 4096) + `"}`
	for _, tt := range []struct {
		name string
		spec []byte
		want []string // in the error; none: the import succeeds
	}{
		{"six references to itself", fanOut(1, 6, true, ""), []string{"components.schemas.A0: a sample of it would pass 100000 nodes", "fans out (6 references to itself)"}},
		{"a chain of schemas six wide", fanOut(8, 6, false, ""), []string{"components.schemas.A0: a sample of it would pass 100000 nodes", "fans out"}},
		{"an example copied 6^5 times", fanOut(5, 6, false, big), []string{"components.schemas.A0: a sample of it would pass 8 MiB"}},
		{"two wide and shallow", fanOut(5, 2, false, ""), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := openapi.Import(tt.spec, openapi.Options{Dialects: importers.All()})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("want the import, have %v", err)
				}
				if _, err := format.Load(res.FS(), tt.name); err != nil {
					t.Fatalf("want the import to load, have %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want an error saying %q, have an import of %d bytes of twin.toml", tt.want, len(res.Files["twin.toml"]))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("want an error saying %q, have %v", w, err)
				}
			}
		})
	}
}

// TestImportBoundsWholeImport: operations each within the sample budget
// but together past the import's (20 samples of 56,000 nodes, past
// 1,000,000) are refused, since all of them end up in twin.toml.
func TestImportBoundsWholeImport(t *testing.T) {
	t.Parallel()
	one := string(fanOut(6, 6, false, ""))
	var paths []string
	for i := 0; i < 20; i++ {
		paths = append(paths, fmt.Sprintf(`"/r%d":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A0"}}}}}}}`, i))
	}
	spec := strings.Replace(one, `"paths":{`, `"paths":{`+strings.Join(paths, ",")+",", 1)
	_, err := openapi.Import([]byte(spec), openapi.Options{Dialects: importers.All()})
	if want := "the description's samples would pass 1000000 nodes in all"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("want an error saying %q, have %v", want, err)
	}
}

// TestImportContextCanceled: an import whose context has ended stops with
// the context's error, which the command maps to its exit code.
func TestImportContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := openapi.ImportContext(ctx, fanOut(5, 2, false, ""), openapi.Options{Dialects: importers.All()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, have %v", err)
	}
}

// TestImportWithoutComponents imports and serves a valid description with
// no components at all (every schema inline), which panicked the importer.
func TestImportWithoutComponents(t *testing.T) {
	for _, tt := range []struct{ name, spec, overlay string }{
		{"stripe style", `{"openapi":"3.0.3","info":{"title":"Bare","version":"1"},
"paths":{"/ping":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["ok"],"properties":{"ok":{"type":"boolean"}}}}}}}}}}}`, ""},
		{"github style", `{"openapi":"3.0.3","info":{"title":"Bare","version":"1"},
"paths":{"/ping":{"get":{"x-github":{},"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["ok"],"properties":{"ok":{"type":"boolean"}}}}}}}}}}}`, "[twin]\nname = \"bare\"\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := openapi.Import([]byte(tt.spec), openapi.Options{Dialects: importers.All(), Overlay: []byte(tt.overlay)})
			if err != nil {
				t.Fatalf("want the import, have %v", err)
			}
			tw, err := format.Load(res.FS(), tt.name)
			if err != nil {
				t.Fatalf("want the import to load, have %v", err)
			}
			status, prov, body := send(t, newEngine(t, tw), "GET", "/ping", "")
			if status != 200 || prov != "template" || body["ok"] != false {
				t.Errorf("GET /ping: want 200 template {\"ok\":false}, have %d %s %v", status, prov, body)
			}
		})
	}
}

// refChain is a description whose one operation answers S0, where each of
// S0..S(n-1) is only a reference to the next, as JSON or YAML.
func refChain(n int, asYAML bool) []byte {
	var b strings.Builder
	if asYAML {
		b.WriteString("openapi: 3.0.3\ninfo: {title: Chain, version: \"1\"}\npaths:\n  /c:\n    get:\n      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: \"#/components/schemas/S0\"}\ncomponents:\n  schemas:\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "    S%d: {$ref: \"#/components/schemas/S%d\"}\n", i, i+1)
		}
		fmt.Fprintf(&b, "    S%d: {type: object}\n", n)
		return []byte(b.String())
	}
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"Chain","version":"1"},"paths":{"/c":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/S0"}}}}}}}},"components":{"schemas":{`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `"S%d":{"$ref":"#/components/schemas/S%d"},`, i, i+1)
	}
	fmt.Fprintf(&b, `"S%d":{"type":"object"}}}}`, n)
	return []byte(b.String())
}

// TestImportBoundsRefChain: a chain of references to references longer
// than openapi.MaxRefChain is refused before the parser resolves it (2,000
// links took the parser 4 s, 8,000 more than a minute, and the old import
// accepted both after that), in JSON and YAML; a chain at the limit
// imports.
func TestImportBoundsRefChain(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec []byte
		want string // "": the import succeeds
	}{
		{"json 2000", refChain(2000, false), "components.schemas.S0: a chain of 2000 references to references"},
		{"yaml 2000", refChain(2000, true), "components.schemas.S0: a chain of 2000 references to references"},
		{"json past the limit", refChain(openapi.MaxRefChain+1, false), fmt.Sprintf("a chain of %d references", openapi.MaxRefChain+1)},
		// The operation's schema is a link too.
		{"json at the limit", refChain(openapi.MaxRefChain-1, false), ""},
		{"yaml at the limit", refChain(openapi.MaxRefChain-1, true), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.Import(tt.spec, openapi.Options{Dialects: importers.All()})
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("want the import, have %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("want an error saying %q, have %v", tt.want, err)
			}
		})
	}
}

// TestImportBoundsValidation: a GitHub-style description whose example
// would cost the validator w^d steps (oneOfs six wide and eight deep: 3 s
// and 528 MiB; nine deep, minutes) answers the sampler's output instead,
// without validating the example.
func TestImportBoundsValidation(t *testing.T) {
	const width, depth = 6, 9
	var schemas []string
	for l := 0; l < depth; l++ {
		var branches []string
		for i := 0; i < width; i++ {
			branches = append(branches, fmt.Sprintf(`{"type":"object","title":"b%d","required":["x"],"properties":{"x":{"$ref":"#/components/schemas/N%d"}}}`, i, l+1))
		}
		schemas = append(schemas, fmt.Sprintf(`"N%d":{"oneOf":[%s]}`, l, strings.Join(branches, ",")))
	}
	schemas = append(schemas, fmt.Sprintf(`"N%d":{"type":"string"}`, depth))
	example := `"s"`
	for l := 0; l < depth; l++ {
		example = `{"x":` + example + `}`
	}
	spec := `{"openapi":"3.0.3","info":{"title":"G","version":"1"},"paths":{"/g":{"get":{"x-github":{},"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/N0"},"example":` +
		example + `}}}}}}},"components":{"schemas":{` + strings.Join(schemas, ",") + `}}}`
	res, err := openapi.Import([]byte(spec), openapi.Options{Dialects: importers.All(), Overlay: []byte("[twin]\nname = \"g\"\n")})
	if err != nil {
		t.Fatal(err)
	}
	if body := string(res.Files["twin.toml"]); strings.Contains(body, `"s"`) {
		t.Errorf("twin.toml: want the sampler's answer, not the unvalidated example:\n%s", body)
	}
}
