// Package fault is the one home of a twin's fault injection: its fault
// profiles compiled from the twin's [[fault_profiles]] and the built-in
// ones (builtin.toml), the decision whether a rule fires on a request and
// what it answers, the latency it adds, and the rate-limit check.
//
// Loading and serving are kept apart: Compile (compile.go) runs once per
// twin; Decide and Limit (fire.go, ratelimit.go) run per request, under
// the session's exclusive lock, and take what they read of the session
// explicitly: its seed, its rules' counters and its rate-limit window. The
// package holds no state of its own, so the same seed gives the same
// faults in any process.
//
// Whether a rule fires on a request is a pure function of (session seed,
// profile, rule, k), k counting the session's requests that matched that
// rule: there is no shared random stream, so a request the rule does not
// match never moves which request fails.
package fault

import (
	"fmt"
	"strings"

	"github.com/wraithdev/wraith/twin/format"
)

// None is the profile that is always there and always means no faults; a
// twin cannot replace it.
const None = "none"

// Set is a twin's compiled fault profiles by name: the built-in ones and
// the twin's own, which replace a built-in one of the same name.
type Set struct {
	profiles map[string]*Profile // None -> nil
	names    []string            // sorted, None included
}

// Profile is a compiled fault profile.
type Profile struct {
	name  string
	rules []*Rule
}

// Effect is what a firing rule does to the answer.
type Effect uint8

// Effects.
const (
	EffectNone   Effect = iota // latency only: the normal answer, late
	EffectAnswer               // an error answer in the request's stead
	EffectReset                // the connection closes, no answer
)

// Rule is a compiled format.FaultRule.
type Rule struct {
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
	effect  Effect
	status  int
	body    []byte
	wraith  bool // body is Wraith's shape, the twin has no [errors.api_error]
	latency format.Latency
	slow    bool
}

// Count is one fault rule's counters in a session: how many requests
// matched it and how often it fired. The session keeps them (they are its
// state, reset and forked with it); Decide moves them.
type Count struct {
	Matched uint64
	Fired   uint64
}

// Names returns the names of the profiles, None included, sorted. Callers
// must not change it.
func (s *Set) Names() []string { return s.names }

// Check returns a *ProfileError unless name is "" or a profile of s.
func (s *Set) Check(name string) error {
	if _, ok := s.profiles[name]; !ok && name != "" {
		return &ProfileError{Name: name, Available: s.names}
	}
	return nil
}

// Profile returns the profile named name; nil for "", None or a name that
// is no profile, all of which inject nothing.
func (s *Set) Profile(name string) *Profile {
	if name == "" || name == None {
		return nil
	}
	return s.profiles[name]
}

// Len is the number of the profile's rules: how many counters a session
// under it keeps.
func (p *Profile) Len() int { return len(p.rules) }

// Header is the rule's X-Wraith-Fault value, "<profile>/<rule>". Callers
// must not change it.
func (r *Rule) Header() []string { return r.header }

// Effect is what the rule does when it fires.
func (r *Rule) Effect() Effect { return r.effect }

// Post reports whether the rule fires after the request ran: its change
// is kept and its answer lost.
func (r *Rule) Post() bool { return r.post }

// Answer is the error answer of an EffectAnswer rule: its status, its
// body (callers must not change it), and whether the body is Wraith's own
// shape rather than the provider's.
func (r *Rule) Answer() (status int, body []byte, wraith bool) {
	return r.status, r.body, r.wraith
}

// ProfileError says a fault profile does not exist.
type ProfileError struct {
	Name      string
	Available []string
}

func (p *ProfileError) Error() string {
	return fmt.Sprintf("fault profile %q is not one of this twin's; available: %s", p.Name, strings.Join(p.Available, ", "))
}
