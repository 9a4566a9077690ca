package fault

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"net/http"
	"slices"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/format"
)

// Twin is what compiling fault profiles needs of the twin they serve.
type Twin struct {
	Name string
	// Profiles are the twin's own [[fault_profiles]].
	Profiles []format.FaultProfile
	// Errors are the twin's [errors.*] tables, which effect.error names.
	Errors *format.Errors
	// HasRoute reports whether tmpl is one of the twin's route templates
	// for method ("" for any method); match.route must be one.
	HasRoute func(method, tmpl string) bool
	// Shape compiles a provider-shaped answer as the twin's other error
	// answers are: status unless the answer names its own, and the body
	// as it goes on the wire. It is the engine's, so an injected error is
	// byte for byte what the twin's own errors look like.
	Shape func(a *format.Answer, status int) (int, []byte, error)
}

// Compile builds the built-in profiles and the twin's own; a twin's
// profile replaces a built-in one of its name.
func Compile(t Twin) (*Set, error) {
	builtin, err := Builtin()
	if err != nil {
		return nil, fmt.Errorf("twin %s: %w", t.Name, err)
	}
	if t.Errors == nil {
		t.Errors = &format.Errors{}
	}
	s := &Set{profiles: map[string]*Profile{None: nil}}
	all := append(builtin, t.Profiles...)
	for i := range all {
		p, err := t.compileProfile(&all[i])
		if err != nil {
			return nil, fmt.Errorf("twin %s: fault profile %s: %w", t.Name, all[i].Name, err)
		}
		s.profiles[p.name] = p
	}
	s.names = slices.Sorted(maps.Keys(s.profiles))
	return s, nil
}

func (t *Twin) compileProfile(fp *format.FaultProfile) (*Profile, error) {
	p := &Profile{name: fp.Name}
	for i := range fp.Rules {
		fr := &fp.Rules[i]
		h := fnv.New64a()
		h.Write([]byte(fp.Name + "\x00" + fr.Name))
		r := &Rule{
			header: []string{fp.Name + "/" + fr.Name},
			method: fr.Match.Method,
			route:  fr.Match.Route,
			key:    h.Sum64(),
			after:  -1,
			post:   fr.Phase == "post",
		}
		if r.route != "" && !t.HasRoute(r.method, r.route) {
			return nil, fmt.Errorf("rule %s: match.route %q is no route of this twin (see wraith inspect for its routes)", fr.Name, r.route)
		}
		w := fr.When
		switch {
		case w.Probability != nil:
			r.prob = true
			r.certain = *w.Probability >= 1
			r.threshold = uint64(math.Ldexp(*w.Probability, 64))
		case w.Nth != nil:
			r.nth = map[uint64]bool{}
			for _, n := range w.Nth {
				r.nth[uint64(n)] = true
			}
		case w.Every > 0:
			r.every = uint64(w.Every)
		case w.After != nil:
			r.after = *w.After
		}
		r.maxFires = uint64(max(w.MaxFires, 0))
		if fr.Latency != "" {
			lat, err := format.ParseLatency(fr.Latency)
			if err != nil {
				return nil, fmt.Errorf("rule %s: %w", fr.Name, err)
			}
			r.latency, r.slow = lat, true
		}
		if err := t.compileEffect(r, fr); err != nil {
			return nil, fmt.Errorf("rule %s: %w", fr.Name, err)
		}
		p.rules = append(p.rules, r)
	}
	return p, nil
}

func (t *Twin) compileEffect(r *Rule, fr *format.FaultRule) error {
	fe := fr.Effect
	var err error
	switch {
	case fe == nil:
		r.effect = EffectNone
	case fe.Reset != "":
		r.effect = EffectReset
	case fe.Error != "":
		r.effect = EffectAnswer
		a := t.Errors.Named(fe.Error)
		if a == nil && fe.Error != "api_error" {
			return fmt.Errorf("effect.error %q names no [errors.%s] table", fe.Error, fe.Error)
		}
		if a == nil {
			// A twin that does not say how its provider fails gets
			// Wraith's own 500, typed so nobody mistakes it.
			err := apierr.New(apierr.ProviderError, "an injected provider error (fault "+r.header[0]+"); the twin has no [errors.api_error] to shape it as its provider would").With("type", "wraith_fault")
			r.status, r.body, r.wraith = err.Status(), err.Body(), true
			return nil
		}
		if r.status, r.body, err = t.Shape(a, http.StatusInternalServerError); err != nil {
			return fmt.Errorf("errors.%s: %w", fe.Error, err)
		}
	default:
		r.effect = EffectAnswer
		if r.status, r.body, err = t.Shape(&format.Answer{Status: fe.Status, Body: fe.Body}, http.StatusInternalServerError); err != nil {
			return fmt.Errorf("effect.body: %w", err)
		}
	}
	return nil
}
