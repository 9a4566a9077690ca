// Package compiled turns a loaded twin (format.Twin) and its dialect into
// the immutable form the engine serves: resources with their rules, keys
// and nested defaults; a router from each route to its endpoint; the
// recorded answers, compacted and keyed by canonical request; the
// provider's error shapes; the fault profiles; and a starting world per
// fixture set.
//
// Everything here runs once, when a twin is loaded, and nothing after
// Compile changes what it returned: the engine's request path, and any
// number of requests at once, only read a Twin and its values. What they
// build per request (an entity being written, an answer) they build from
// copies. The package knows nothing of sessions' state or requests; the
// few methods on its values that a request path asks (a resource's
// addresses, a rule's conditions) compute from the compiled values alone.
package compiled

import (
	"fmt"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/fault"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/route"
	"github.com/wraithdev/wraith/twin/world"
)

// Options are what Compile needs beside the twin.
type Options struct {
	// Dialect is how the twin's provider speaks. Required.
	Dialect dialect.Dialect
	// Scrub tokenizes the PII in an object, in place, under the twin's
	// policy. What writes start from (skeletons, recorded shapes, fixture
	// entities) is scrubbed once, here, so that a write need scrub only
	// the values it sets. Required.
	Scrub func(*object.Object)
	// Import loads a twin whose fixture sets this twin imports; nil when
	// the twin imports none.
	Import func(name string) (*format.Twin, error)
}

// Twin is a compiled twin. Its fields and everything they reach are
// read-only once Compile returns.
type Twin struct {
	// Source is the loaded twin this was compiled from.
	Source *format.Twin
	// Router matches a request's method and path to its endpoint.
	Router *route.Router[*Endpoint]
	// Errors are the provider's error shapes: the twin's [errors], else
	// its dialect's.
	Errors ErrorShapes
	// Faults are the built-in fault profiles and the twin's own.
	Faults *fault.Set

	resources map[string]*Resource            // by name
	recorded  map[string]map[string]*Recorded // path -> request key -> answer
	worlds    map[string]*world.World         // qualified fixture name -> world; "" is the recorded world
	fixtures  []string                        // qualified names, sorted
}

// compiler is the state of one Compile.
type compiler struct {
	src  *format.Twin
	opts Options
	out  *Twin
}

// Compile compiles t as its dialect speaks it.
func Compile(t *format.Twin, opts Options) (*Twin, error) {
	if opts.Dialect == nil || opts.Scrub == nil {
		return nil, fmt.Errorf("compiled: twin %s: Options.Dialect (dialects.Lookup of twin.toml's dialect) and Options.Scrub (the engine's scrub of skeletons and fixtures) are both required", t.Name())
	}
	c := &compiler{src: t, opts: opts, out: &Twin{
		Source:   t,
		Router:   route.New[*Endpoint](),
		recorded: map[string]map[string]*Recorded{},
		worlds:   map[string]*world.World{},
	}}
	var err error
	if c.out.Errors, err = compileErrorShapes(t.Manifest.Errors, opts.Dialect.Errors()); err != nil {
		return nil, fmt.Errorf("twin %s: errors: %w", t.Name(), err)
	}
	resources, err := c.compileResources()
	if err != nil {
		return nil, err
	}
	c.out.resources = resources
	if err := c.compileRecordings(resources); err != nil {
		return nil, err
	}
	if err := c.compileHonest(resources); err != nil {
		return nil, err
	}
	for _, r := range resources {
		// What writes start from is scrubbed once, here, and encoded
		// scrubbed.
		opts.Scrub(r.Skeleton)
		if r.Shape != nil {
			opts.Scrub(r.Shape)
		}
		r.Encoded = object.NewSkeleton(r.Skeleton)
	}
	if err := c.buildWorlds(resources); err != nil {
		return nil, err
	}
	if c.out.Faults, err = c.compileProfiles(); err != nil {
		return nil, err
	}
	return c.out, nil
}

// Name is the twin's name.
func (t *Twin) Name() string { return t.Source.Name() }

// Resource returns the resource named name, or nil.
func (t *Twin) Resource(name string) *Resource { return t.resources[name] }

// compileResources compiles the twin's resources and adds its route table
// (format's Twin.Routes, the one inspect shows) to the router.
func (c *compiler) compileResources() (map[string]*Resource, error) {
	table, err := c.src.Routes()
	if err != nil {
		return nil, err
	}
	schemas, err := requestSchemas(c.src.Requests)
	if err != nil {
		return nil, fmt.Errorf("twin %s: %s: %w", c.src.Name(), format.RequestsFile, err)
	}
	resources := map[string]*Resource{}
	for i := range c.src.Manifest.Resources {
		spec := &c.src.Manifest.Resources[i]
		r, err := compileResource(spec, c.out.Errors, &c.src.Manifest.Errors, c.opts.Dialect.Defaults())
		if err != nil {
			return nil, fmt.Errorf("twin %s: resource %s: %w", c.src.Name(), spec.Name, err)
		}
		r.Index = i
		resources[r.Name] = r
	}
	for _, rt := range table {
		ep := &Endpoint{Kind: KindPlain}
		switch {
		case rt.Resource != nil:
			r := resources[rt.Resource.Name]
			ep = r.endpointFor(rt.Op)
			ep.Resource = r
			ep.Event = rt.Resource.Events.Type(rt.Op)
		case rt.Declared != nil:
			ep.Template = routeTemplate(*rt.Declared)
		}
		ep.Route = []string{rt.Method + " " + rt.Path}
		ep.Params = schemas.of(rt.Method, rt.Path)
		ep.Repeated = ep.Params.RepeatedNames()
		if err := c.out.Router.Add(rt.Method, rt.Path, ep); err != nil {
			return nil, fmt.Errorf("twin %s: %s %s: %w", c.src.Name(), rt.Method, rt.Path, err)
		}
	}
	linkMembers(resources)
	linkExpansions(resources)
	return resources, nil
}
