package openapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
)

// A Dialect is what an import knows of one way of speaking HTTP (SPEC
// §13): how a provider of that dialect lays out its resources, lists and
// errors in a description. The pipeline (Import) is the same for every
// dialect; it calls a dialect's Hooks at fixed points, and writes the
// dialect's Name into twin.toml, so the twin is served the way it was
// imported.
//
// This package names no provider: the dialects that know one live in
// packages of their own, which import this one, and a caller passes them
// in Options.Dialects. Rest, the default, is this package's own.
type Dialect interface {
	// Name is the dialect twin.toml names ("rest"); an overlay's dialect
	// key chooses a dialect by it.
	Name() string
	// Detect reports whether a description is written in this dialect's
	// style (extensions only its provider uses), for an import whose
	// overlay names no dialect. Dialects are asked in order; Rest
	// answers yes to everything, so it goes last.
	Detect(doc *openapi3.T) bool
	// Begin starts one import; its Hooks hold that import's state.
	Begin(im *Importer) (Hooks, error)
}

// Hooks are one import's dialect-specific steps, called in this order:
// the stateful resources (which claim the operations they serve, through
// Importer.Claim), the error shapes, then the routes of every operation
// no resource claimed.
type Hooks interface {
	Resources() ([]format.Resource, error)
	Errors() format.Errors
	// Routes declares the unclaimed operations (Importer.TemplateRoutes
	// does it the usual way): in the order twin.toml lists them, each
	// skipped one reported through Importer.Skip. An operation neither
	// skipped nor given a route is counted unserved.
	Routes(unclaimed []Operation) []format.Route
}

// OverlayDefaulter is a Dialect that ships the overlay an import of it
// takes when given none: a description whose resources the overlay
// anchors is no stateful twin without one.
type OverlayDefaulter interface {
	DefaultOverlay() ([]byte, error)
}

// choose is the dialect of an import: the one the overlay names, else the
// first of dialects that detects the description, else Rest (unless
// dialects has a rest of its own).
func choose(doc *openapi3.T, ov *Overlay, dialects []Dialect) (Dialect, error) {
	all := dialects
	if !slices.ContainsFunc(all, func(d Dialect) bool { return d.Name() == "rest" }) {
		all = append(slices.Clone(all), Rest())
	}
	if ov.Dialect != "" {
		var names []string
		for _, d := range all {
			if d.Name() == ov.Dialect {
				return d, nil
			}
			names = append(names, d.Name())
		}
		return nil, fmt.Errorf("overlay: dialect %q is not one this import knows: want one of %s", ov.Dialect, strings.Join(names, ", "))
	}
	for _, d := range all {
		if d.Detect(doc) {
			return d, nil
		}
	}
	return Rest(), nil // unreachable: Rest detects everything
}
