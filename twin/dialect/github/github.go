// Package github is GitHub's dialect (SPEC §13): JSON bodies, lists as
// bare arrays paged by page and per_page with a Link header, integer ids,
// "token" and Bearer credentials, 201 creates and 204 deletes.
package github

import (
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Dialect is GitHub's.
type Dialect struct{ dialect.Base }

var _ dialect.Dialect = Dialect{}

// New returns GitHub's dialect.
func New() Dialect { return Dialect{} }

// Name is "github".
func (Dialect) Name() string { return "github" }

// Defaults: creates answer 201, deletes 204 with no body, ids are
// integers.
func (Dialect) Defaults() dialect.Defaults {
	return dialect.Defaults{CreateStatus: http.StatusCreated, DeleteStatus: http.StatusNoContent, IDKind: "integer"}
}

// FromString: a pull request names its head and base branch objects by
// their ref, so a string sets the object's ref.
func (Dialect) FromString(_ string, cur *object.Object, s string) (*object.Object, bool) {
	if _, ok := cur.Get("ref"); !ok {
		return nil, false
	}
	o := cur.Clone()
	o.Set("ref", s)
	return o, true
}

// List pages every list as a bare array: per_page defaults to 30 and is
// at most 100.
func (Dialect) List(q dialect.ListQuery) (dialect.ListAnswer, *dialect.Refusal) {
	return dialect.LinkPages{PerPage: 30, MaxPerPage: 100}.List(q), nil
}

// Credential reads "token" and Bearer credentials, and the Basic user.
func (Dialect) Credential(authorization string) (dialect.Credentials, bool) {
	return dialect.Credential(authorization, "bearer", "token")
}
