// Package rest is the dialect of a twin imported from a description of
// any API (SPEC §13, §17): JSON bodies, lists as bare arrays paged by a
// Link header, string ids, 201 creates and 204 deletes.
package rest

import (
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"
)

// Dialect is the rest dialect.
type Dialect struct{ dialect.Base }

var _ dialect.Dialect = Dialect{}

// New returns the rest dialect.
func New() Dialect { return Dialect{} }

// Name is "rest".
func (Dialect) Name() string { return "rest" }

// Defaults: creates answer 201, deletes 204, ids are strings.
func (Dialect) Defaults() dialect.Defaults {
	return dialect.Defaults{CreateStatus: http.StatusCreated, DeleteStatus: http.StatusNoContent, IDKind: "string"}
}
