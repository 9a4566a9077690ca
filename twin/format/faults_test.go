package format

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

const faultsBase = `format = 1
name = "t"
[errors.not_found]
status = 404
body = '{"error":"{id}"}'
[errors.api_error]
status = 500
body = '{"error":{"type":"api_error"}}'
[errors.card_declined]
status = 402
body = '{"error":{"code":"{code}","payment_intent":"{entity}"}}'
[[resources]]
name = "thing"
collection = "/v1/things"
item = "/v1/things/{id}"
id_prefix = "th_"
skeleton = '{"id":"","object":"thing"}'
[[resources.actions]]
name = "pay"
[[resources.actions.rules]]
when = { card = "bad" }
set = { status = "failed" }
fail = "card_declined"
fail_with = { code = "card_declined" }
`

func loadManifest(tb testing.TB, toml string) (*Twin, error) {
	tb.Helper()
	return Load(fstest.MapFS{"twin.toml": {Data: []byte(toml)}}, "t")
}

func TestFaultProfilesLoad(t *testing.T) {
	tw, err := loadManifest(t, faultsBase+`
[[fault_profiles]]
name = "flaky"
[[fault_profiles.rules]]
name  = "confirm-500"
match = { method = "POST", route = "/v1/things/{id}/pay" }
when  = { probability = 0.05, max_fires = 3 }
phase = "post"
effect = { error = "api_error" }
latency = "lognormal(120ms,0.4,5s)"
[[fault_profiles.rules]]
name = "third"
when = { nth = [3, 7] }
effect = { status = 503, body = '{"x":1}' }
[[fault_profiles.rules]]
name = "reset"
when = { every = 10 }
effect = { reset = "before_headers" }
latency = "250ms"
`)
	if err != nil {
		t.Fatal(err)
	}
	if have := tw.Manifest.Errors.Named("api_error"); have == nil || have.Status != 500 {
		t.Fatalf("errors.api_error: have %+v", have)
	}
	if have := tw.Manifest.Errors.Named("not_found"); have == nil || have.Status != 404 {
		t.Fatalf("errors.not_found: have %+v", have)
	}
	p := tw.Manifest.FaultProfiles
	if len(p) != 1 || len(p[0].Rules) != 3 || *p[0].Rules[0].When.Probability != 0.05 || p[0].Rules[1].When.Nth[1] != 7 || p[0].Rules[2].Effect.Reset != "before_headers" {
		t.Fatalf("profiles: have %+v", p)
	}
	if r := tw.Manifest.Resources[0].Actions[0].Rules[0]; r.Fail != "card_declined" || r.FailWith["code"] != "card_declined" {
		t.Fatalf("rule fail: have %+v", r)
	}
}

func TestFaultProfileProblems(t *testing.T) {
	for _, c := range []struct{ name, toml, want string }{
		{"unknown key still caught", "[pii]\ncolour = 1\n", `unknown key "pii.colour"`},
		{"unknown key in known error", "[errors.invalid_request]\nstauts = 1\nbody='{}'\n", `unknown key "errors.invalid_request.stauts"`},
		{"unknown key in extra error", "[errors.teapot]\nstatus = 418\nbdy = '{}'\n", `errors.teapot: unknown key "bdy"`},
		{"extra error body", "[errors.teapot]\nstatus = 418\nbody = 'nope'\n", "errors.teapot.body is not valid JSON"},
		{"none reserved", "[[fault_profiles]]\nname = \"none\"\n", `"none" is built in`},
		{"two whens", "[[fault_profiles]]\nname = \"p\"\n[[fault_profiles.rules]]\nname = \"r\"\nwhen = { every = 2, nth = [1] }\neffect = { reset = \"before_headers\" }\n", "more than one of probability"},
		{"probability range", "[[fault_profiles]]\nname = \"p\"\n[[fault_profiles.rules]]\nname = \"r\"\nwhen = { probability = 1.5 }\neffect = { reset = \"before_headers\" }\n", "when.probability 1.5"},
		{"unknown error", "[[fault_profiles]]\nname = \"p\"\n[[fault_profiles.rules]]\nname = \"r\"\neffect = { error = \"gone\" }\n", `effect.error "gone" names no [errors.gone]`},
		{"two effects", "[[fault_profiles]]\nname = \"p\"\n[[fault_profiles.rules]]\nname = \"r\"\neffect = { error = \"api_error\", reset = \"before_headers\" }\n", "effect is one of"},
		{"bad reset", "[[fault_profiles]]\nname = \"p\"\n[[fault_profiles.rules]]\nname = \"r\"\neffect = { reset = \"after_body\" }\n", `effect.reset "after_body"`},
		{"bad phase", "[[fault_profiles]]\nname = \"p\"\n[[fault_profiles.rules]]\nname = \"r\"\nphase = \"mid\"\neffect = { reset = \"before_headers\" }\n", `phase "mid"`},
		{"post without effect", "[[fault_profiles]]\nname = \"p\"\n[[fault_profiles.rules]]\nname = \"r\"\nphase = \"post\"\nlatency = \"1s\"\n", "needs an effect"},
		{"bad latency", "[[fault_profiles]]\nname = \"p\"\n[[fault_profiles.rules]]\nname = \"r\"\nlatency = \"lognormal(1s,0.4,10ms)\"\n", `latency "lognormal(1s,0.4,10ms)"`},
		{"duplicate rule", "[[fault_profiles]]\nname = \"p\"\n[[fault_profiles.rules]]\nname = \"r\"\nlatency = \"1s\"\n[[fault_profiles.rules]]\nname = \"r\"\nlatency = \"1s\"\n", `rule "r" is declared twice`},
		{"bad route", "[[fault_profiles]]\nname = \"p\"\n[[fault_profiles.rules]]\nname = \"r\"\nmatch = { route = \"v1\" }\nlatency = \"1s\"\n", `match.route "v1"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadManifest(t, faultsBase+c.toml)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error containing %q, have %v", c.want, err)
			}
			if !strings.Contains(err.Error(), "t/twin.toml") {
				t.Fatalf("want the file named, have %v", err)
			}
		})
	}
	_, err := loadManifest(t, strings.Replace(faultsBase, `fail = "card_declined"`, `fail = "card_missing"`, 1))
	if err == nil || !strings.Contains(err.Error(), `fail "card_missing" names no [errors.card_missing]`) {
		t.Fatalf("rule fail: have %v", err)
	}
}

func TestParseLatency(t *testing.T) {
	for in, want := range map[string]Latency{
		"250ms":                    {Fixed: 250 * time.Millisecond},
		"lognormal(120ms,0.4,5s)":  {Median: 120 * time.Millisecond, Sigma: 0.4, Max: 5 * time.Second},
		"lognormal( 1s , 0 , 1s )": {Median: time.Second, Max: time.Second},
	} {
		have, err := ParseLatency(in)
		if err != nil || have != want {
			t.Errorf("ParseLatency(%q): want %+v, have %+v, %v", in, want, have, err)
		}
	}
	for _, in := range []string{"", "0s", "-1s", "1h", "lognormal(0s,0.4,5s)", "lognormal(1s,-1,5s)", "lognormal(1s,0.4,1h)", "normal(1s,1,2s)"} {
		if _, err := ParseLatency(in); err == nil {
			t.Errorf("ParseLatency(%q): want an error", in)
		}
	}
}
