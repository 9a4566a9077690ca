package fault

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/format"
)

func ptrTo[T any](v T) *T { return &v }

// TestBuiltinProfiles pins what builtin.toml declares. Rule names and
// probabilities fix which requests fail for a seed, so a change to the
// file changes every seed's faults and must be made here on purpose too.
// These are the declarations the engine once kept as a Go slice.
func TestBuiltinProfiles(t *testing.T) {
	want := []format.FaultProfile{
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
	have, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, have) {
		t.Errorf("builtin.toml:\nwant %+v\nhave %+v", want, have)
	}
}

// TestBuiltinFresh: each call parses anew, so a caller that changes what
// it was given (Compile appends a twin's own) cannot reach another twin's.
func TestBuiltinFresh(t *testing.T) {
	a, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	a[0].Name, a[0].Rules[0].Name = "changed", "changed"
	b, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if want, have := "flaky/write-error", b[0].Name+"/"+b[0].Rules[0].Name; want != have {
		t.Errorf("second Builtin: want %s, have %s", want, have)
	}
}

// TestBuiltinDocumented: docs/serving.md shows builtin.toml's profiles as
// the file has them, so what a user reads is what every twin serves.
func TestBuiltinDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/serving.md")
	if err != nil {
		t.Fatal(err)
	}
	// The file from its first table on: its leading comment is for
	// readers of the source.
	body := builtinTOML[strings.Index(builtinTOML, "\n[[fault_profiles]]\n")+1:]
	if !strings.Contains(string(doc), body) {
		t.Errorf("docs/serving.md does not show twin/fault/builtin.toml from its first [[fault_profiles]] on; copy it there:\n%s", body)
	}
}
