package fault

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/format"
)

func TestCompileNames(t *testing.T) {
	for _, c := range []struct {
		name string
		own  []format.FaultProfile
		want []string
	}{
		{"built-in only", nil, []string{"flaky", "none", "slow"}},
		{"own beside", []format.FaultProfile{{Name: "calm", Rules: []format.FaultRule{{Name: "late", Latency: "1ms"}}}}, []string{"calm", "flaky", "none", "slow"}},
		{"own replaces", []format.FaultProfile{{Name: "flaky", Rules: []format.FaultRule{{Name: "late", Latency: "1ms"}}}}, []string{"flaky", "none", "slow"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustCompile(t, testTwin(false, c.own...))
			if have := s.Names(); !slices.Equal(c.want, have) {
				t.Errorf("want %v, have %v", c.want, have)
			}
		})
	}
}

// TestCompileReplaces: a twin's flaky is the one served, rule for rule.
func TestCompileReplaces(t *testing.T) {
	s := mustCompile(t, testTwin(false, format.FaultProfile{Name: "flaky", Rules: []format.FaultRule{{Name: "late", Latency: "1ms"}}}))
	p := s.Profile("flaky")
	if want, have := 1, p.Len(); want != have {
		t.Fatalf("rules: want %d, have %d", want, have)
	}
	if want, have := "flaky/late", p.rules[0].Header()[0]; want != have {
		t.Errorf("rule: want %s, have %s", want, have)
	}
}

func TestProfileLookup(t *testing.T) {
	s := mustCompile(t, testTwin(false))
	for _, c := range []struct {
		name     string
		profile  bool
		checkErr bool
	}{
		{"", false, false},
		{"none", false, false},
		{"flaky", true, false},
		{"slow", true, false},
		{"nope", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if want, have := c.profile, s.Profile(c.name) != nil; want != have {
				t.Errorf("Profile: want a profile %v, have %v", want, have)
			}
			err := s.Check(c.name)
			var pe *ProfileError
			if want, have := c.checkErr, errors.As(err, &pe); want != have {
				t.Fatalf("Check: want a *ProfileError %v, have %v", want, err)
			}
			if pe != nil && !slices.Equal(pe.Available, s.Names()) {
				t.Errorf("available: want %v, have %v", s.Names(), pe.Available)
			}
		})
	}
}

func TestCompileEffects(t *testing.T) {
	for _, c := range []struct {
		name       string
		bare       bool
		effect     *format.FaultEffect
		wantEffect Effect
		wantStatus int
		wantBody   string // a prefix
		wantWraith bool
	}{
		{"provider's api_error, compacted", false, &format.FaultEffect{Error: "api_error"}, EffectAnswer, 502, `{"error":{"type":"api_error"}}`, false},
		{"Wraith's 500 without api_error", true, &format.FaultEffect{Error: "api_error"}, EffectAnswer, 500, `{"error":{"code":"provider-error"`, true},
		{"status and body, default status", false, &format.FaultEffect{Body: `{ "x": 1 }`}, EffectAnswer, 500, `{"x":1}`, false},
		{"status and body", false, &format.FaultEffect{Status: 503, Body: `{"x":1}`}, EffectAnswer, 503, `{"x":1}`, false},
		{"reset", false, &format.FaultEffect{Reset: "before_headers"}, EffectReset, 0, "", false},
		{"latency only", false, nil, EffectNone, 0, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := mustCompile(t, testTwin(c.bare, format.FaultProfile{Name: "p", Rules: []format.FaultRule{{Name: "r", Effect: c.effect, Latency: "1ms"}}}))
			r := s.Profile("p").rules[0]
			status, body, wraith := r.Answer()
			if r.Effect() != c.wantEffect || status != c.wantStatus || !strings.HasPrefix(string(body), c.wantBody) || wraith != c.wantWraith {
				t.Errorf("want effect %d, %d %s..., wraith %v; have effect %d, %d %s, wraith %v", c.wantEffect, c.wantStatus, c.wantBody, c.wantWraith, r.Effect(), status, body, wraith)
			}
		})
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		rule format.FaultRule
		want string
	}{
		{"route of no twin", format.FaultRule{Name: "r", Match: format.FaultMatch{Route: "/v1/other"}, Latency: "1ms"}, `twin t: fault profile p: rule r: match.route "/v1/other" is no route of this twin`},
		{"route of another method", format.FaultRule{Name: "r", Match: format.FaultMatch{Method: "DELETE", Route: "/v1/things/{id}"}, Latency: "1ms"}, `match.route "/v1/things/{id}" is no route`},
		{"unknown error key", format.FaultRule{Name: "r", Effect: &format.FaultEffect{Error: "teapot"}}, `twin t: fault profile p: rule r: effect.error "teapot" names no [errors.teapot] table`},
		{"body not JSON", format.FaultRule{Name: "r", Effect: &format.FaultEffect{Status: 500, Body: "{"}}, `twin t: fault profile p: rule r: effect.body: `},
		{"bad latency", format.FaultRule{Name: "r", Latency: "soon"}, `twin t: fault profile p: rule r: latency "soon"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile(testTwin(false, format.FaultProfile{Name: "p", Rules: []format.FaultRule{c.rule}}))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("want an error with %q, have %v", c.want, err)
			}
		})
	}
}
