package github

import (
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"
)

// Errors are GitHub's answers for the kinds a GitHub twin's [errors] may
// leave out: a body that is not JSON is 400 Problems parsing JSON, not
// the 422 a request GitHub can read but refuses gets.
func (Dialect) Errors() map[string]dialect.Shape {
	return map[string]dialect.Shape{
		"unreadable": {Status: http.StatusBadRequest, Body: `{"message":"Problems parsing JSON","documentation_url":"https://docs.github.com/rest"}`},
	}
}
