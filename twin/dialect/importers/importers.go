// Package importers lists the dialects an import may take, for the
// callers of package openapi (wraith import openapi, and serve of a
// description file). It is a package of its own, not part of the
// serve-time dialect registry, so that a server that serves twins does
// not link the importer and its OpenAPI parser, and package openapi,
// which the dialects' import hooks build on, names no provider.
package importers

import (
	"github.com/wraithdev/wraith/twin/dialect/github/githubimport"
	"github.com/wraithdev/wraith/twin/dialect/stripe/stripeimport"
	"github.com/wraithdev/wraith/twin/openapi"
)

// All are the import dialects in the order they are asked to detect a
// description; openapi.Rest, the default, answers last.
func All() []openapi.Dialect {
	return []openapi.Dialect{githubimport.Dialect(), stripeimport.Dialect(), openapi.Rest()}
}
