package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// FaultProfile is one [[fault_profiles]] entry: named rules that make a
// session's answers fail the way the provider's do, reproducibly. Every
// twin also has built-in profiles, none and those of twin/fault's
// builtin.toml (flaky, slow), written in this same syntax; a twin's
// profile of the same name replaces a built-in one, except none.
//
// Every optional field of these types is omitzero, so WriteManifest
// leaves an unset one out and Load reads the same profile back: a rule
// without nth must not come back as nth = [], a rule that never fires.
// Pointers and lists keep nil apart from a value (probability = 0,
// nth = []), as they do in the rest of Manifest.
type FaultProfile struct {
	Name        string      `toml:"name"`
	Description string      `toml:"description,omitzero"`
	Rules       []FaultRule `toml:"rules,omitzero"`
}

// FaultRule is one rule of a fault profile.
type FaultRule struct {
	// Name is unique within the profile; with the profile's name and the
	// session's seed it fixes the rule's firing sequence.
	Name  string     `toml:"name"`
	Match FaultMatch `toml:"match,omitzero"`
	// When says which matching requests the rule fires on; absent = all.
	When FaultWhen `toml:"when,omitzero"`
	// Phase is "pre" (default: the request changes nothing) or "post"
	// (the change is kept, the answer is lost).
	Phase string `toml:"phase,omitzero"`
	// Effect is what a firing rule answers; absent = the normal answer,
	// delayed by Latency.
	Effect *FaultEffect `toml:"effect,omitzero"`
	// Latency is "250ms" or "lognormal(MEDIAN,SIGMA,MAX)".
	Latency string `toml:"latency,omitzero"`
}

// FaultMatch selects the requests a rule counts. Both fields are optional.
type FaultMatch struct {
	Method string `toml:"method,omitzero"`
	Route  string `toml:"route,omitzero"` // a route template, "/v1/payment_intents/{id}/confirm"
}

// FaultWhen is at most one of Probability, Nth, Every or After, and an
// optional MaxFires. k counts the session's requests that match the rule,
// from 1.
type FaultWhen struct {
	Probability *float64 `toml:"probability,omitzero"` // fires with this chance, 0 to 1
	Nth         []int64  `toml:"nth,omitzero"`         // fires when k is one of these
	Every       int64    `toml:"every,omitzero"`       // fires when k is a multiple of this
	After       *int64   `toml:"after,omitzero"`       // fires when k is past this
	MaxFires    int64    `toml:"max_fires,omitzero"`   // fires at most this often (0 = no bound)
}

// FaultEffect is one of: Error, an [errors.*] key; Status and Body; or
// Reset = "before_headers", a closed connection with no answer.
type FaultEffect struct {
	Error  string `toml:"error,omitzero"`
	Status int    `toml:"status,omitzero"`
	Body   string `toml:"body,omitzero"`
	Reset  string `toml:"reset,omitzero"`
}

// Latency is a parsed latency: Fixed, or a log-normal distribution with
// median Median and shape Sigma, capped at Max.
type Latency struct {
	Fixed  time.Duration
	Median time.Duration
	Sigma  float64
	Max    time.Duration
}

var lognormalRe = regexp.MustCompile(`^lognormal\(\s*([0-9.]+[a-zµ]+)\s*,\s*([0-9.]+)\s*,\s*([0-9.]+[a-zµ]+)\s*\)$`)

// maxLatency bounds a latency, so a typo cannot hang a test for hours.
const maxLatency = 5 * time.Minute

// ParseLatency reads "250ms" or "lognormal(120ms,0.4,5s)".
func ParseLatency(s string) (Latency, error) {
	if m := lognormalRe.FindStringSubmatch(s); m != nil {
		med, err1 := time.ParseDuration(m[1])
		sigma, err2 := strconv.ParseFloat(m[2], 64)
		mx, err3 := time.ParseDuration(m[3])
		if err1 != nil || err2 != nil || err3 != nil || med <= 0 || sigma < 0 || sigma > 10 || mx < med || mx > maxLatency {
			return Latency{}, fmt.Errorf("latency %q: want lognormal(MEDIAN,SIGMA,MAX) with 0 < MEDIAN <= MAX <= %s and SIGMA from 0 to 10, e.g. lognormal(120ms,0.4,5s)", s, maxLatency)
		}
		return Latency{Median: med, Sigma: sigma, Max: mx}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > maxLatency {
		return Latency{}, fmt.Errorf("latency %q: want a duration from 1ns to %s such as \"250ms\", or lognormal(120ms,0.4,5s)", s, maxLatency)
	}
	return Latency{Fixed: d}, nil
}

// ErrorKeys are the [errors.*] keys with a meaning of their own; any other
// key is an extra error shape that fault effects and rule fails name.
var ErrorKeys = []string{"not_found", "invalid_request", "validation", "missing_reference", "unreadable", "idempotency", "rate_limited", "unexpected_state"}

// Named returns the [errors.*] answer with key, or nil.
func (e *Errors) Named(key string) *Answer {
	switch key {
	case "not_found":
		return e.NotFound
	case "invalid_request":
		return e.InvalidRequest
	case "validation":
		return e.Validation
	case "missing_reference":
		return e.MissingReference
	case "unreadable":
		return e.Unreadable
	case "idempotency":
		return e.Idempotency
	case "rate_limited":
		return e.RateLimited
	case "unexpected_state":
		return e.UnexpectedState
	}
	return e.Extra[key]
}

// decodeExtraErrors reads the [errors.*] tables that are not ErrorKeys
// into m.Errors.Extra, and returns the strict decoder's unknown-key
// problems that remain once those are accounted for.
func decodeExtraErrors(raw []byte, m *Manifest, strict *toml.StrictMissingError) ([]string, error) {
	var all struct {
		Errors map[string]any `toml:"errors"`
	}
	if err := toml.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	var msgs []string
	for _, e := range strict.Errors {
		key := e.Key()
		if len(key) >= 2 && key[0] == "errors" && !isErrorKey(key[1]) {
			continue
		}
		row, col := e.Position()
		msgs = append(msgs, fmt.Sprintf("line %d col %d: unknown key %q", row, col, strings.Join(key, ".")))
	}
	for name, v := range all.Errors {
		if isErrorKey(name) {
			continue
		}
		t, ok := v.(map[string]any)
		if !ok {
			msgs = append(msgs, fmt.Sprintf("errors.%s: want a table with status and body", name))
			continue
		}
		a := &Answer{}
		for k, fv := range t {
			switch k {
			case "status":
				n, ok := fv.(int64)
				if !ok {
					msgs = append(msgs, fmt.Sprintf("errors.%s.status: want a whole number", name))
				}
				a.Status = int(n)
			case "body":
				s, ok := fv.(string)
				if !ok {
					msgs = append(msgs, fmt.Sprintf("errors.%s.body: want a string of JSON", name))
				}
				a.Body = s
			default:
				msgs = append(msgs, fmt.Sprintf("errors.%s: unknown key %q (an error answer has status and body)", name, k))
			}
		}
		if m.Errors.Extra == nil {
			m.Errors.Extra = map[string]*Answer{}
		}
		m.Errors.Extra[name] = a
	}
	return msgs, nil
}

func isErrorKey(k string) bool {
	for _, e := range ErrorKeys {
		if e == k {
			return true
		}
	}
	return false
}

func validateFaults(m *Manifest, file string, probs *Problems) {
	for name, a := range m.Errors.Extra {
		validateAnswer(a, "errors."+name, probs, file)
	}
	for i, r := range m.Resources {
		check := func(rules []Rule, what string) {
			for j, rl := range rules {
				if rl.Fail != "" && m.Errors.Named(rl.Fail) == nil {
					probs.addf("%s: resources[%d] (%s) %s rules[%d]: fail %q names no [errors.%s] table", file, i, r.Name, what, j, rl.Fail, rl.Fail)
				}
				if rl.Fail == "" && len(rl.FailWith) > 0 {
					probs.addf("%s: resources[%d] (%s) %s rules[%d]: fail_with needs fail, the [errors.*] key to answer", file, i, r.Name, what, j)
				}
			}
		}
		check(r.Create, "create")
		check(r.UpdateRules, "update_rules")
		for _, a := range r.Actions {
			check(a.Rules, "actions."+a.Name)
		}
		if r.OnDelete != nil {
			check(r.OnDelete.Rules, "on_delete")
		}
	}
	validateFaultProfiles(m, file, probs)
}

// MaxFaultRules bounds the rules of one fault profile. A session keeps a
// counter per rule of its profile and a snapshot carries them
// (fault_counts), so a snapshot's restore refuses more than this
// (twin/session's Validate); the loader refuses a profile past it, so no
// twin writes a snapshot it cannot restore.
const MaxFaultRules = 1024

// validateFaultProfiles checks m's [[fault_profiles]]; their effects may
// name m's [errors.*] tables.
func validateFaultProfiles(m *Manifest, file string, probs *Problems) {
	seen := map[string]bool{}
	for i, p := range m.FaultProfiles {
		at := fmt.Sprintf("%s: fault_profiles[%d] (%s)", file, i, p.Name)
		switch {
		case !ValidProfileName(p.Name):
			probs.addf("%s: name %q must be 1-64 letters, digits, '.', '-' or '_', starting with a letter or digit", at, p.Name)
		case p.Name == "none":
			probs.addf("%s: \"none\" is built in and always means no faults: pick another name", at)
		case seen[p.Name]:
			probs.addf("%s: profile %q is declared twice", at, p.Name)
		}
		seen[p.Name] = true
		if len(p.Rules) > MaxFaultRules {
			// Past the limit the twin is refused whatever its rules say, so
			// their checks would only bury this problem.
			probs.addf("%s: %d rules, past the limit of %d rules a profile may have (a snapshot carries one counter per rule): split it into profiles of at most %d rules", at, len(p.Rules), MaxFaultRules, MaxFaultRules)
			continue
		}
		rules := map[string]bool{}
		for j, r := range p.Rules {
			validateFaultRule(m, r, fmt.Sprintf("%s rules[%d] (%s)", at, j, r.Name), rules, probs)
		}
	}
}

// ParseFaultProfiles reads a document that holds [[fault_profiles]] and
// nothing else, in the syntax of twin.toml's, and checks them as Load
// checks a twin's own, with no [errors.*] tables beside them (so an effect
// may name only "api_error"). The built-in profiles are written so (see
// twin/fault). file names the document in messages.
func ParseFaultProfiles(raw []byte, file string) ([]FaultProfile, error) {
	var doc struct {
		FaultProfiles []FaultProfile `toml:"fault_profiles"`
	}
	dec := toml.NewDecoder(bytes.NewReader(raw)).DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		var strict *toml.StrictMissingError
		var de *toml.DecodeError
		switch {
		case errors.As(err, &strict):
			var msgs []string
			for _, e := range strict.Errors {
				row, col := e.Position()
				msgs = append(msgs, fmt.Sprintf("line %d col %d: unknown key %q", row, col, strings.Join(e.Key(), ".")))
			}
			return nil, fmt.Errorf("%s: %s (a fault profile document has [[fault_profiles]] only)", file, strings.Join(msgs, "; "))
		case errors.As(err, &de):
			row, col := de.Position()
			return nil, fmt.Errorf("%s: line %d col %d: %v (key %q)", file, row, col, de, strings.Join(de.Key(), "."))
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var probs Problems
	validateFaultProfiles(&Manifest{FaultProfiles: doc.FaultProfiles}, file, &probs)
	if len(probs) > 0 {
		return nil, probs
	}
	return doc.FaultProfiles, nil
}

func validateFaultRule(m *Manifest, r FaultRule, at string, seen map[string]bool, probs *Problems) {
	if !ValidProfileName(r.Name) {
		probs.addf("%s: name %q must be 1-64 letters, digits, '.', '-' or '_'", at, r.Name)
	} else if seen[r.Name] {
		probs.addf("%s: rule %q is declared twice in this profile: names fix the fault sequence, so make them unique", at, r.Name)
	}
	seen[r.Name] = true
	if r.Match.Method != "" && !validMethod(r.Match.Method) {
		probs.addf("%s: match.method %q is not an HTTP method (GET, POST, ...)", at, r.Match.Method)
	}
	if r.Match.Route != "" && !strings.HasPrefix(r.Match.Route, "/") {
		probs.addf("%s: match.route %q must be a route template starting with /, e.g. /v1/customers/{id}", at, r.Match.Route)
	}
	w := r.When
	kinds := 0
	if w.Probability != nil {
		kinds++
		if p := *w.Probability; math.IsNaN(p) || p < 0 || p > 1 {
			probs.addf("%s: when.probability %v: want a number from 0 to 1", at, p)
		}
	}
	if w.Nth != nil {
		kinds++
		for _, n := range w.Nth {
			if n < 1 {
				probs.addf("%s: when.nth %d: matching requests count from 1", at, n)
			}
		}
	}
	if w.Every != 0 {
		kinds++
		if w.Every < 1 {
			probs.addf("%s: when.every %d: want 1 or more", at, w.Every)
		}
	}
	if w.After != nil {
		kinds++
		if *w.After < 0 {
			probs.addf("%s: when.after %d: want 0 or more", at, *w.After)
		}
	}
	if kinds > 1 {
		probs.addf("%s: when has more than one of probability, nth, every and after: give one (max_fires may go with any)", at)
	}
	if w.MaxFires < 0 {
		probs.addf("%s: when.max_fires %d: want 1 or more, or leave it out", at, w.MaxFires)
	}
	switch r.Phase {
	case "", "pre", "post":
	default:
		probs.addf("%s: phase %q: want \"pre\" (nothing changes) or \"post\" (the change is kept, the answer is lost)", at, r.Phase)
	}
	if r.Latency != "" {
		if _, err := ParseLatency(r.Latency); err != nil {
			probs.addf("%s: %v", at, err)
		}
	}
	if r.Effect == nil {
		if r.Latency == "" {
			probs.addf("%s: give an effect, a latency or both", at)
		}
		if r.Phase == "post" {
			probs.addf("%s: phase \"post\" loses the answer, so it needs an effect", at)
		}
		return
	}
	e := r.Effect
	n := 0
	if e.Error != "" {
		n++
		if m.Errors.Named(e.Error) == nil && e.Error != "api_error" {
			probs.addf("%s: effect.error %q names no [errors.%s] table of this twin", at, e.Error, e.Error)
		}
	}
	if e.Status != 0 || e.Body != "" {
		n++
		if e.Status < 100 || e.Status > 599 {
			probs.addf("%s: effect.status %d is not an HTTP status", at, e.Status)
		}
		if !json.Valid([]byte(e.Body)) {
			probs.addf("%s: effect.body is not valid JSON", at)
		}
	}
	if e.Reset != "" {
		n++
		if e.Reset != "before_headers" {
			probs.addf("%s: effect.reset %q: want \"before_headers\" (the connection closes with no answer)", at, e.Reset)
		}
	}
	if n != 1 {
		probs.addf("%s: effect is one of { error = \"KEY\" }, { status = N, body = '...' } or { reset = \"before_headers\" }", at)
	}
}

// ValidProfileName reports whether s can name a fault profile or rule.
func ValidProfileName(s string) bool { return profileName.MatchString(s) }

var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
