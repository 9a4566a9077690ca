package github

import (
	"encoding/json"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
)

// TestWord: GitHub's sentences for a body its schema refuses, "Invalid
// request." and the reason, values in Ruby's notation.
func TestWord(t *testing.T) {
	const invalid = "Invalid request.\n\n"
	for _, tc := range []struct {
		name string
		p    dialect.Problem
		want string
	}{
		{"missing", dialect.Problem{Kind: dialect.MissingParam, Param: "title"}, invalid + `"title" wasn't supplied.`},
		{"missing nested", dialect.Problem{Kind: dialect.MissingParam, Param: "author[email]"}, invalid + `"email" wasn't supplied.`},
		{"unknown", dialect.Problem{Kind: dialect.UnknownParam, Param: "per_page"}, invalid + `"per_page" is not a permitted key.`},
		{"integer as text", dialect.Problem{Kind: dialect.InvalidInteger, Param: "issue", Value: "517", Sent: "517"}, invalid + `For 'properties/issue', "517" is not an integer.`},
		{"integer or null", dialect.Problem{Kind: dialect.InvalidInteger, Param: "milestone", Value: "x", Sent: "x", Nullable: true}, invalid + `For 'properties/milestone', "x" is not an integer or null.`},
		{"boolean as text", dialect.Problem{Kind: dialect.InvalidBoolean, Param: "force", Value: "false", Sent: "false"}, invalid + `For 'properties/force', "false" is not a boolean.`},
		{"null object", dialect.Problem{Kind: dialect.ExpectedHash, Param: "author"}, invalid + `For 'properties/author', nil is not an object.`},
		{"number for a string", dialect.Problem{Kind: dialect.InvalidString, Param: "title", Value: "7", Sent: json.Number("7")}, invalid + `For 'properties/title', 7 is not a string.`},
		{"array", dialect.Problem{Kind: dialect.ExpectedArray, Param: "labels", Value: "bug", Sent: "bug"}, invalid + `For 'properties/labels', "bug" is not an array.`},
		{"nested", dialect.Problem{Kind: dialect.InvalidString, Param: "labels[0][name]", Sent: json.Number("1")}, invalid + `For 'properties/labels/items/properties/name', 1 is not a string.`},
		{"enum", dialect.Problem{Kind: dialect.InvalidEnum, Param: "state", Value: "bogus", Sent: "bogus", Allowed: []string{"open", "closed"}}, invalid + `For 'properties/state', "bogus" is not a member of ["open", "closed"].`},
		{"too long", dialect.Problem{Kind: dialect.TooLong, Param: "body", Limit: 65535, Have: 91016}, invalid + "Only 65535 characters are allowed; 91016 were supplied."},
		{"no such", dialect.Problem{Kind: dialect.NoSuchObject, Param: "milestone", Object: "milestone", Value: "9"}, "No such milestone: '9'"},
	} {
		if have := New().Word(tc.p); have != tc.want {
			t.Errorf("%s:\nwant %q\nhave %q", tc.name, tc.want, have)
		}
	}
}
