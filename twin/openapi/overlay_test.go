package openapi_test

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/openapi"
)

func TestOverlayErrorsAndFailRules(t *testing.T) {
	const rule = `
[[resources]]
name = "payment_intent"
[[resources.actions]]
name = "confirm"
[[resources.actions.rules]]
when = { payment_method = "pm_card_chargeDeclined" }
fail = "card_declined"
fail_with = { code = "card_declined" }
`
	for _, tc := range []struct{ name, errors, want string }{
		{"an extra shape", "[errors.card_declined]\nstatus = 402\nbody = '{\"error\":{\"code\":\"{code}\",\"payment_intent\":\"{entity}\"}}'\n", ""},
		{"an inferred shape", "[errors.not_found]\nstatus = 404\nbody = '{}'\n", "errors.not_found is inferred from the description"},
		{"not JSON", "[errors.card_declined]\nstatus = 402\nbody = '{'\n", "errors.card_declined: want status"},
		{"no status", "[errors.card_declined]\nbody = '{}'\n", "errors.card_declined: want status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ov, err := openapi.ParseOverlay([]byte(tc.errors + rule))
			switch {
			case tc.want != "":
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("want an error with %q, have %v", tc.want, err)
				}
			case err != nil:
				t.Fatal(err)
			default:
				r := ov.Resources[0].Actions[0].Rules[0]
				if r.Fail != "card_declined" || r.FailWith["code"] != "card_declined" || ov.Errors["card_declined"].Status != 402 {
					t.Errorf("want the rule's fail and fail_with and the error shape kept, have %+v %+v", r, ov.Errors)
				}
			}
		})
	}
}
