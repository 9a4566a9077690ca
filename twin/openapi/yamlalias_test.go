package openapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// aliasBomb is the review's YAML description: components.schemas.L0 is an
// object of width string properties, and each of L1..L(depth-1) an object
// of width properties that are aliases of the one before, so the last
// stands for some width^(depth-1) schemas. In flow style the whole
// document is one flow mapping, which starts like JSON.
func aliasBomb(width, depth int, flow bool) []byte {
	schemas := make([]string, 0, depth)
	props := make([]string, width)
	for i := range props {
		props[i] = fmt.Sprintf("x%d: {type: string}", i)
	}
	for l := 0; l < depth; l++ {
		if l > 0 {
			for i := range props {
				props[i] = fmt.Sprintf("y%d: *l%d", i, l-1)
			}
		}
		schemas = append(schemas, fmt.Sprintf("L%d: &l%d {type: object, properties: {%s}}", l, l, strings.Join(props, ", ")))
	}
	answer := fmt.Sprintf(`{"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/L%d"}}}}}`, depth-1)
	if flow {
		return []byte(fmt.Sprintf(`{openapi: 3.0.3, info: {title: t, version: "1"}, paths: {/things: {get: {responses: %s}}}, components: {schemas: {%s}}}`,
			answer, strings.Join(schemas, ", ")))
	}
	return []byte(fmt.Sprintf("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /things:\n    get:\n      responses: %s\ncomponents:\n  schemas:\n    %s\n",
		answer, strings.Join(schemas, "\n    ")))
}

// laughs is a description whose x-data extension is the classic alias
// bomb: ten aliases of ten aliases of ... a string, depth deep.
func laughs(depth int) []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /p:\n    get:\n      responses: {\"204\": {description: ok}}\nx-data:\n  l0: &l0 lol\n")
	for l := 1; l < depth; l++ {
		fmt.Fprintf(&b, "  l%d: &l%d [%s]\n", l, l, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", l-1), 10), ","))
	}
	return []byte(b.String())
}

// TestImportBoundsYAMLAliases: a YAML description whose aliases expand it
// past openapi.MaxAliasNodes is refused before kin-openapi decodes it,
// naming the alias that stands for the most and how to write it instead.
// kin-openapi decodes one struct at a time, each with a fresh go-yaml
// alias budget, so the review's 1.3 KB file (aliases eight wide and eight
// deep) ran import and serve out of memory; in flow style it starts like
// JSON, which the pre-pass used to take it for. Aliases within the limit
// still import.
func TestImportBoundsYAMLAliases(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec []byte
		want []string // in the error; none: the import succeeds
	}{
		{"eight wide, eight deep", aliasBomb(8, 8, false), []string{
			"components.schemas.L7.properties.y0 (line 16): YAML aliases expand this description of 1206 bytes and 226 nodes to 93130690 nodes",
			"(this alias, *l6, stands for 10186165 of them;",
			"56 aliases in all): wraith lets aliases add at most 1000000 nodes; write the description without aliases, or as JSON",
		}},
		{"in flow style", aliasBomb(8, 8, true), []string{"components.schemas.L7.properties.y0 (line 1): YAML aliases expand this description"}},
		{"in an extension", laughs(9), []string{"#/x-data/l8/0 (line 16): YAML aliases expand this description", "(this alias, *l7, stands for 11111111 of them; 80 aliases in all)"}},
		{"eight wide, four deep", aliasBomb(8, 4, false), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.Import(tt.spec, openapi.Options{Dialects: importers.All()})
			if tt.want == nil {
				if err != nil {
					t.Errorf("want the import, have %v", err)
				}
				return
			}
			for _, want := range tt.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("want an error saying %q, have %v", want, err)
				}
			}
		})
	}
}
