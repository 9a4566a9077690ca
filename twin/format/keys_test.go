package format

import (
	"strings"
	"testing"
	"testing/fstest"
)

// issueTwin is a GitHub-shaped twin that uses every field of Keys.
const issueTwin = `format = 1
name = "gh"
[errors.validation]
status = 422
body = '{"message":"Validation Failed","errors":[{"resource":"{resource}","field":"{param}","code":"{code}"}]}'
[[resources]]
name = "issue"
class = "Issue"
collection = "/repos/{owner}/{repo}/issues"
item = "/repos/{owner}/{repo}/issues/{issue_number}"
key = "number"
id_kind = "integer"
parents = ["owner", "repo"]
counter = "numbers"
list = "array"
list_defaults = { state = "open" }
create_status = 201
required = ["title"]
time_format = "rfc3339"
update = ["PATCH"]
computed = { url = "{base}/repos/{owner}/{repo}/issues/{number}" }
skeleton = '{"id":0,"number":0,"title":"","state":"open","labels":[],"closed_at":null}'
[[resources.update_rules]]
when = { state = "closed" }
set = { closed_at = "$now" }
[[resources.update_rules]]
set = { closed_at = "$null" }
[[resources.members]]
path = "labels"
resource = "label"
param = "labels"
[[resources]]
name = "label"
collection = "/repos/{owner}/{repo}/labels"
item = "/repos/{owner}/{repo}/labels/{name}"
key = "name"
id_kind = "integer"
parents = ["owner", "repo"]
delete_status = 204
skeleton = '{"id":0,"name":""}'
[[resources]]
name = "repository"
create_paths = ["/user/repos"]
list_paths = ["/user/repos"]
item = "/repos/{owner}/{repo}"
key = "name"
id_kind = "integer"
parents = ["owner"]
parent_defaults = { owner = "octocat" }
computed = { full_name = "{owner}/{name}", "owner.login" = "{owner}" }
skeleton = '{"id":0,"name":"","full_name":"","owner":{"login":""}}'
[[resources]]
name = "git_ref"
collection = "/repos/{owner}/{repo}/git/refs"
item = "/repos/{owner}/{repo}/git/refs/{ref...}"
read_paths = ["/repos/{owner}/{repo}/git/ref/{ref...}"]
key = "ref"
key_prefix = "refs/"
id_kind = "none"
parents = ["owner", "repo"]
skeleton = '{"ref":"","object":{"sha":""}}'
`

func TestKeysLoad(t *testing.T) {
	tw, err := Load(fstest.MapFS{"twin.toml": {Data: []byte(issueTwin)}}, "gh")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	issue := tw.Manifest.Resources[0]
	if issue.Key != "number" || issue.Counter != "numbers" || len(issue.UpdateRules) != 2 || issue.Members[0].Resource != "label" {
		t.Errorf("issue keys were not decoded: %+v", issue.Keys)
	}
	var have []string
	for _, op := range tw.Manifest.Resources[3].Operations() {
		have = append(have, op.Method+" "+op.Path+" "+op.Op)
	}
	want := []string{
		"GET /repos/{owner}/{repo}/git/refs list",
		"POST /repos/{owner}/{repo}/git/refs create",
		"GET /repos/{owner}/{repo}/git/refs/{ref...} retrieve",
		"GET /repos/{owner}/{repo}/git/ref/{ref...} retrieve",
		"POST /repos/{owner}/{repo}/git/refs/{ref...} update",
		"DELETE /repos/{owner}/{repo}/git/refs/{ref...} delete",
	}
	if strings.Join(have, "\n") != strings.Join(want, "\n") {
		t.Errorf("git_ref operations:\nwant %s\nhave %s", strings.Join(want, "\n     "), strings.Join(have, "\n     "))
	}
}

func TestKeysValidation(t *testing.T) {
	tests := []struct {
		name, from, to, want string
	}{
		{"unknown list", `list = "array"`, `list = "pages"`, `list "pages": want "stripe"`},
		{"create status", `create_status = 201`, `create_status = 203`, "create_status 203: want 200, 201 or 202"},
		{"delete status", `delete_status = 204`, `delete_status = 404`, "delete_status 404: want 200 or 204"},
		{"id kind", `id_kind = "none"`, `id_kind = "uuid"`, `id_kind "uuid"`},
		{"integer ids need no prefix, strings do", `id_kind = "none"`, `id_kind = "string"`, "id_prefix is required"},
		{"digit ids have no prefix", `id_kind = "none"`, `id_kind = "digits"
id_prefix = "p_"`, `id_kind = "digits" ids are decimal digits only`},
		{"time format", `time_format = "rfc3339"`, `time_format = "iso"`, `time_format "iso"`},
		{"key not in skeleton", `key = "number"`, `key = "nombre"`, `key "nombre" is not a field of the skeleton`},
		{"path parameter not a parent", `parents = ["owner", "repo"]
counter`, `parents = ["owner"]
counter`, `has {repo}, which is not a parent`},
		{"create path without a parent", `parent_defaults = { owner = "octocat" }`, ``, `create path "/user/repos" does not carry parent {owner}`},
		{"default for no parent", `parent_defaults = { owner = "octocat" }`, `parent_defaults = { owner = "octocat", org = "x" }`, "parent_defaults.org names no parent"},
		{"item without a key parameter", `item = "/repos/{owner}/{repo}/labels/{name}"`, `item = "/repos/{owner}/{repo}/labels"`, "must be a path ending in its key parameter"},
		{"read path with other parameters", `read_paths = ["/repos/{owner}/{repo}/git/ref/{ref...}"]`, `read_paths = ["/repos/{owner}/{repo}/git/ref/{sha}"]`, "must have the item's parameters"},
		{"computed placeholder", `full_name = "{owner}/{name}"`, `full_name = "{owner}/{nom}"`, "computed.full_name uses {nom}"},
		{"member of nothing", `resource = "label"`, `resource = "tag"`, `resource "tag" is not declared`},
		{"member field not an array", `path = "labels"`, `path = "title"`, `field "title" must be an array`},
		{"list default not a field", `list_defaults = { state = "open" }`, `list_defaults = { status = "open" }`, "list_defaults.status is not a field"},
		{"update rule", `closed_at = "$now" }`, `closed_at = "$later" }`, `update_rules rules[0].set.closed_at`},
		{"counter across parents", `parents = ["owner"]
`, `parents = ["owner"]
counter = "numbers"
`, `counter "numbers" is shared with issue`},
		{"validation answer", `status = 422`, `status = 4220`, "errors.validation.status 4220"},
		{"rest parameter then a member", `item = "/repos/{owner}/{repo}/issues/{issue_number}"`, `item = "/repos/{owner}/{repo}/issues/{issue_number...}"`, "ends in a rest parameter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(issueTwin, tc.from) {
				t.Fatalf("test twin has no %q", tc.from)
			}
			m := strings.Replace(issueTwin, tc.from, tc.to, 1)
			_, err := Load(fstest.MapFS{"twin.toml": {Data: []byte(m)}}, "gh")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want an error containing %q, have %v", tc.want, err)
			}
		})
	}
}

func TestStripeShapeStillChecked(t *testing.T) {
	m := strings.Replace(goodManifest, `item = "/widgets/{id}"`, `item = "/gadgets/{id}"`, 1)
	_, err := Load(fstest.MapFS{"twin.toml": {Data: []byte(m)}}, "demo")
	if err == nil || !strings.Contains(err.Error(), "must be the collection path followed by /{id}") {
		t.Errorf("a resource without keys must keep the Stripe shape rule, have %v", err)
	}
}
