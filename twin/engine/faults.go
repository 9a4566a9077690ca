package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/session"
)

// Fault profiles make a session's answers fail the way the provider's
// do, reproducibly. Whether a rule fires on a request is a pure function
// of (session seed, profile, rule, k), k counting the session's requests
// that matched that rule: there is no shared random stream, so a request
// the rule does not match never moves which request fails, and the same
// seed gives the same faults in any process.

// builtinProfiles are the profiles every twin has. A twin's own profile
// of the same name replaces one, except none, which is always no faults.
var builtinProfiles = []format.FaultProfile{
	{Name: "flaky", Description: "a few percent provider errors and connection resets, over writes and reads", Rules: []format.FaultRule{
		{Name: "write-error", Match: format.FaultMatch{Method: "POST"}, When: format.FaultWhen{Probability: ptrTo(0.03)}, Effect: &format.FaultEffect{Error: "api_error"}},
		{Name: "write-lost", Match: format.FaultMatch{Method: "POST"}, When: format.FaultWhen{Probability: ptrTo(0.01)}, Phase: "post", Effect: &format.FaultEffect{Reset: "before_headers"}},
		{Name: "delete-error", Match: format.FaultMatch{Method: "DELETE"}, When: format.FaultWhen{Probability: ptrTo(0.03)}, Effect: &format.FaultEffect{Error: "api_error"}},
		{Name: "read-error", Match: format.FaultMatch{Method: "GET"}, When: format.FaultWhen{Probability: ptrTo(0.02)}, Effect: &format.FaultEffect{Error: "api_error"}},
		{Name: "read-reset", Match: format.FaultMatch{Method: "GET"}, When: format.FaultWhen{Probability: ptrTo(0.01)}, Effect: &format.FaultEffect{Reset: "before_headers"}},
	}},
	{Name: "slow", Description: "every answer late: log-normal latency, median 120ms, at most 5s", Rules: []format.FaultRule{
		{Name: "latency", Latency: "lognormal(120ms,0.4,5s)"},
	}},
}

func ptrTo[T any](v T) *T { return &v }

// faultProfile is a compiled profile.
type faultProfile struct {
	name  string
	rules []*faultRule
}

type faultEffect uint8

const (
	effectNone   faultEffect = iota // latency only: the normal answer, late
	effectAnswer                    // an error answer
	effectReset                     // the connection closes, no answer
)

// faultRule is a compiled format.FaultRule.
type faultRule struct {
	header []string // X-Wraith-Fault: "<profile>/<rule>"
	method string   // "" = any
	route  string   // a route template; "" = any
	key    uint64   // hash of profile and rule name

	prob      bool
	threshold uint64 // a draw below it fires; see fires
	certain   bool   // probability 1
	nth       map[uint64]bool
	every     uint64
	after     int64 // -1: no after
	maxFires  uint64

	post    bool
	effect  faultEffect
	status  int
	body    []byte
	wraith  bool // body is Wraith's shape, the twin has no [errors.api_error]
	latency format.Latency
	slow    bool
}

// compileProfiles builds the built-in profiles and the twin's own.
func (e *Engine) compileProfiles() error {
	e.profiles = map[string]*faultProfile{"none": nil}
	all := append(append([]format.FaultProfile{}, builtinProfiles...), e.twin.Manifest.FaultProfiles...)
	for i := range all {
		p, err := e.compileProfile(&all[i])
		if err != nil {
			return fmt.Errorf("twin %s: fault profile %s: %w", e.twin.Name(), all[i].Name, err)
		}
		e.profiles[p.name] = p
	}
	e.profileNames = slices.Sorted(maps.Keys(e.profiles))
	return nil
}

func (e *Engine) compileProfile(fp *format.FaultProfile) (*faultProfile, error) {
	p := &faultProfile{name: fp.Name}
	for i := range fp.Rules {
		fr := &fp.Rules[i]
		h := fnv.New64a()
		h.Write([]byte(fp.Name + "\x00" + fr.Name))
		r := &faultRule{
			header: []string{fp.Name + "/" + fr.Name},
			method: fr.Match.Method,
			route:  fr.Match.Route,
			key:    h.Sum64(),
			after:  -1,
			post:   fr.Phase == "post",
		}
		if r.route != "" && !e.hasRoute(r.method, r.route) {
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
		if err := e.compileEffect(r, fr); err != nil {
			return nil, fmt.Errorf("rule %s: %w", fr.Name, err)
		}
		p.rules = append(p.rules, r)
	}
	return p, nil
}

func (e *Engine) compileEffect(r *faultRule, fr *format.FaultRule) error {
	fe := fr.Effect
	switch {
	case fe == nil:
		r.effect = effectNone
	case fe.Reset != "":
		r.effect = effectReset
	case fe.Error != "":
		r.effect = effectAnswer
		a := e.twin.Manifest.Errors.Named(fe.Error)
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
		s, err := compileShaped(a, http.StatusInternalServerError)
		if err != nil {
			return fmt.Errorf("errors.%s: %w", fe.Error, err)
		}
		r.status, r.body = s.status, []byte(s.body)
	default:
		r.effect = effectAnswer
		s, err := compileShaped(&format.Answer{Status: fe.Status, Body: fe.Body}, http.StatusInternalServerError)
		if err != nil {
			return fmt.Errorf("effect.body: %w", err)
		}
		r.status, r.body = s.status, []byte(s.body)
	}
	return nil
}

// hasRoute reports whether tmpl is one of the twin's route templates.
func (e *Engine) hasRoute(method, tmpl string) bool {
	methods := []string{method}
	if method == "" {
		methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	}
	for _, m := range methods {
		if ep, ok := e.router.Match(m, tmpl); ok && routePath(ep.Value) == tmpl {
			return true
		}
	}
	return false
}

// routePath is the path template of an endpoint's route.
func routePath(ep *endpoint) string {
	r := ep.route[0]
	return r[strings.IndexByte(r, ' ')+1:]
}

// faultDefaults fills the serve-wide fault profile and rate limit into
// the default settings, checking both.
func (e *Engine) faultDefaults(def *session.Settings) error {
	if def.FaultProfile == "" {
		def.FaultProfile = e.opts.FaultProfile
	}
	if err := e.CheckProfile(def.FaultProfile); err != nil {
		return err
	}
	if def.RateLimit.IsZero() {
		lim, err := rate.Parse(e.opts.RateLimit)
		if err != nil {
			return err
		}
		def.RateLimit = lim
	}
	return nil
}

// ProfileError says a fault profile does not exist.
type ProfileError struct {
	Name      string
	Available []string
}

func (p *ProfileError) Error() string {
	return fmt.Sprintf("fault profile %q is not one of this twin's; available: %s", p.Name, strings.Join(p.Available, ", "))
}

// FaultProfiles returns the names of the twin's fault profiles, built-in
// ones included, sorted.
func (e *Engine) FaultProfiles() []string { return e.profileNames }

// CheckProfile returns a *ProfileError unless name is "" or a profile.
func (e *Engine) CheckProfile(name string) error {
	if _, ok := e.profiles[name]; !ok && name != "" {
		return &ProfileError{Name: name, Available: e.profileNames}
	}
	return nil
}

// faulted answers a request under the session's fault profile: the
// first matching rule that fires answers in its stead (pre), after it
// (post: the change is kept, the answer is lost), or late.
func (e *Engine) faulted(st *session.State, req *request, a *answer) {
	name := st.FaultProfile()
	if name == "" || name == "none" {
		e.dispatch(st, req, a)
		return
	}
	r, k := e.firing(st, e.profiles[name], req)
	if r == nil {
		e.dispatch(st, req, a)
		return
	}
	if r.slow {
		if d := drawLatency(r.latency, st.Seed(), r.key, k); !st.Delay(d) {
			a.delay = d
		}
	}
	if r.effect == effectNone || r.post {
		e.dispatch(st, req, a)
	}
	a.fault = r.header
	if r.effect == effectNone {
		return
	}
	*a = answer{prov: ProvFault, fault: r.header, delay: a.delay}
	if r.effect == effectReset {
		a.reset = true
		return
	}
	a.status, a.body, a.wraith = r.status, r.body, r.wraith
}

// firing counts the request against every rule of p it matches and
// returns the first that fires, with its k.
func (e *Engine) firing(st *session.State, p *faultProfile, req *request) (*faultRule, uint64) {
	if p == nil {
		return nil, 0
	}
	counts := st.RuleCounts(len(p.rules))
	var fired *faultRule
	var firedK uint64
	for i, r := range p.rules {
		if r.method != "" && r.method != req.method || r.route != "" && r.route != routePath(req.match.Value) {
			continue
		}
		c := &counts[i]
		c.Matched++
		if fired == nil && r.fires(st.Seed(), c.Matched, c.Fired) {
			c.Fired++
			fired, firedK = r, c.Matched
		}
	}
	return fired, firedK
}

// fires is the firing decision for the k-th matching request, given how
// often the rule fired before.
func (r *faultRule) fires(seed, k, fired uint64) bool {
	if r.maxFires > 0 && fired >= r.maxFires {
		return false
	}
	switch {
	case r.prob:
		return r.certain || draw(seed, r.key, k, 0) < r.threshold
	case r.nth != nil:
		return r.nth[k]
	case r.every > 0:
		return k%r.every == 0
	case r.after >= 0:
		return k > uint64(r.after)
	}
	return true
}

// draw is a counter-based generator: the lane-th 64-bit value for the
// k-th match of the rule with key under seed, by splitmix64. Every value
// is computed from its inputs alone.
func draw(seed, key, k, lane uint64) uint64 {
	return splitmix64(splitmix64(splitmix64(seed^key)^k) + lane)
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit maps a 64-bit value to (0, 1).
func unit(v uint64) float64 { return (float64(v>>11) + 0.5) / (1 << 53) }

// drawLatency returns the latency for the k-th match: the fixed one, or a
// log-normal sample (Box–Muller over two counter-based draws), capped.
func drawLatency(l format.Latency, seed, key, k uint64) time.Duration {
	if l.Fixed > 0 {
		return l.Fixed
	}
	z := math.Sqrt(-2*math.Log(unit(draw(seed, key, k, 1)))) * math.Cos(2*math.Pi*unit(draw(seed, key, k, 2)))
	d := time.Duration(float64(l.Median) * math.Exp(l.Sigma*z))
	return min(max(d, 0), l.Max)
}

// wait sleeps for a slow answer on a real clock, as long as the client
// waits; false when it went away.
func wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// resetConn closes the client's connection with no answer, as a provider
// whose load balancer drops it: a TCP reset where the connection is TCP.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // HTTP/2, or a writer that cannot hand over its connection
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}
