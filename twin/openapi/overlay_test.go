package openapi_test

import (
	"os"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
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

// TestShippedOverlaysOneGrammar: both shipped overlays parse with the one
// overlay parser, name their dialect, and keep what they say: stripe's
// skeleton patches and state machines, github's operation anchors and
// twin.toml keys.
func TestShippedOverlaysOneGrammar(t *testing.T) {
	for _, tt := range []struct {
		name  string
		check func(*openapi.Overlay) string
	}{
		{"stripe", func(ov *openapi.Overlay) string {
			pi := ov.Resource("payment_intent")
			if pi == nil || pi.Patch["status"] != "requires_payment_method" || len(pi.Actions) == 0 || len(pi.Create) == 0 || pi.Anchored() {
				return "payment_intent: want a skeleton patch, actions and create rules, no anchors"
			}
			return ""
		}},
		{"github", func(ov *openapi.Overlay) string {
			is := ov.Resource("issue")
			if is == nil || is.GetOp != "issues/get" || is.Counter != "issue-numbers" || is.Patch["state"] != "open" || len(is.Members) != 1 {
				return "issue: want get_op, counter, a skeleton patch and a member"
			}
			return ""
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := openapi.ShippedOverlay(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			ov, err := openapi.ParseOverlay(b)
			if err != nil {
				t.Fatal(err)
			}
			if ov.Dialect != tt.name {
				t.Errorf("dialect: want %s, have %q", tt.name, ov.Dialect)
			}
			if msg := tt.check(ov); msg != "" {
				t.Errorf("%s; have %+v", msg, ov.Resources)
			}
		})
	}
}

// TestOverlayDeclares: a resource key the overlay declares is written as
// declared over what the dialect inferred; immutable is the union; a
// skeleton is refused (it is inferred; skeleton_patch amends it); an entry
// for a resource the import did not infer is reported, not dropped
// silently.
func TestOverlayDeclares(t *testing.T) {
	spec, err := os.ReadFile("testdata/shop.json")
	if err != nil {
		t.Fatal(err)
	}
	ov := `[[resources]]
name = "widget"
list_url = "/v1/all_widgets"
delete = "not_found"
immutable = ["color"]
skeleton_patch = '{"color":"green"}'
[[resources]]
name = "gadget"
id_prefix = "gad_"
`
	res, err := openapi.Import(spec, openapi.Options{Overlay: []byte(ov), Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Twin.Manifest.Resources[0]
	if w.ListURL != "/v1/all_widgets" || w.Delete != "not_found" || w.DeletedBody == "" {
		t.Errorf("widget: want list_url and delete as declared (the inferred deleted_body kept), have list_url %q delete %q deleted_body %q", w.ListURL, w.Delete, w.DeletedBody)
	}
	if have := strings.Join(w.Immutable, ","); have != "color,created,id,object" {
		t.Errorf("immutable: want the union color,created,id,object, have %s", have)
	}
	if !strings.Contains(w.Skeleton, `"color":"green"`) {
		t.Errorf("skeleton: want the patch applied, have %s", w.Skeleton)
	}
	found := false
	for _, u := range res.Report.Unresolved {
		found = found || (u.Subject == "gadget" && strings.Contains(u.Reason, "did not infer"))
	}
	if !found {
		t.Errorf("report: want the unused gadget entry reported, have %+v", res.Report.Unresolved)
	}
	_, err = openapi.ParseOverlay([]byte("[[resources]]\nname = \"widget\"\nskeleton = '{}'\n"))
	if err == nil || !strings.Contains(err.Error(), "skeleton_patch") {
		t.Errorf("a declared skeleton: want it refused, naming skeleton_patch, have %v", err)
	}
}
