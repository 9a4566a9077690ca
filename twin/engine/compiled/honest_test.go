package compiled

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/dialect/stripe"
	"github.com/wraithdev/wraith/twin/format"
)

// honestTwin has resources addressed by id (customer, refund), one
// keyed under a parent (a customer's tax id), and an action.
const honestTwin = `format = 1
name = "honest"

[[resources]]
name = "customer"
collection = "/v1/customers"
item = "/v1/customers/{id}"
id_prefix = "cus_"
skeleton = '{"id":"","object":"customer","deleted":false}'
[[resources.actions]]
name = "archive"
[[resources.actions.rules]]
set = { deleted = true, archived_at = "$now" }

[[resources]]
name = "refund"
collection = "/v1/refunds"
item = "/v1/refunds/{id}"
id_prefix = "re_"
skeleton = '{"id":"","object":"refund"}'

[[resources]]
name = "issuing.transaction"
collection = "/v1/issuing/transactions"
item = "/v1/issuing/transactions/{id}"
id_prefix = "ipi_"
skeleton = '{"id":"","object":"issuing.transaction"}'

[[resources]]
name = "treasury.transaction"
collection = "/v1/treasury/transactions"
item = "/v1/treasury/transactions/{id}"
id_prefix = "trxn_"
skeleton = '{"id":"","object":"treasury.transaction"}'
`

func compileHonest(tb testing.TB, routes string) *Twin {
	tb.Helper()
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(honestTwin + routes)}}, "honest")
	if err != nil {
		tb.Fatal(err)
	}
	ct, err := Compile(tw, Options{Dialect: stripe.New(), Scrub: scrubOwner})
	if err != nil {
		tb.Fatal(err)
	}
	return ct
}

// TestHonestOf: what a declared route's path names and how its template
// lists, decided from the twin's resources.
func TestHonestOf(t *testing.T) {
	ct := compileHonest(t, `
[[routes]]
method = "GET"
path = "/v1/customers/{customer}/cash_balance"
body = '{"object":"cash_balance"}'
[[routes]]
method = "GET"
path = "/v1/customers/{customer}/refunds/{refund}"
body = '{"object":"refund"}'
[[routes]]
method = "GET"
path = "/v1/customers/{customer}/transactions/{transaction}"
body = '{}'
[[routes]]
method = "GET"
path = "/v1/mandates/{mandate}"
body = '{}'
[[routes]]
method = "GET"
path = "/v1/customers/{id}/sources/{id2}"
body = '{}'
[[routes]]
method = "GET"
path = "/v1/customers/{id}/lines"
body = '{"object":"list","data":[{"id":"x"}],"url":"/v1/customers/{id}/lines"}'
[[routes]]
method = "GET"
path = "/v1/balance/history"
body = '[{"id":"x"}]'
[[routes]]
method = "GET"
path = "/v1/runs"
list_key = "runs"
body = '{"total_count":2,"runs":[{"id":1},{"id":2}],"page":3}'
[[routes]]
method = "GET"
path = "/v1/customers/{id}/archive"
status = 204
[[routes]]
method = "GET"
path = "/v1/files/{path...}"
body = '{}'
[[routes]]
method = "POST"
path = "/v1/account_links"
safe = true
body = '{"url":"x"}'
`)
	tests := []struct {
		method, path string
		names        string // resource:route-param, outermost first
		unmodelled   string
		object       string
		list         ListShape
		empty        string
		write, safe  bool
		done         string
	}{
		{"GET", "/v1/customers/{customer}/cash_balance", "customer:customer", "", "", ListNone, "", false, false, ""},
		{"GET", "/v1/customers/{customer}/refunds/{refund}", "customer:customer refund:refund", "", "", ListNone, "", false, false, ""},
		// two resources end in .transaction: the parameter names neither
		{"GET", "/v1/customers/{customer}/transactions/{transaction}", "customer:customer", "transaction", "transaction", ListNone, "", false, false, ""},
		{"GET", "/v1/mandates/{mandate}", "", "mandate", "mandate", ListNone, "", false, false, ""},
		{"GET", "/v1/customers/{id}/sources/{id2}", "customer:id", "id2", "sources", ListNone, "", false, false, ""},
		{"GET", "/v1/customers/{id}/lines", "customer:id", "", "", ListDialect, "", false, false, ""},
		{"GET", "/v1/balance/history", "", "", "", ListArray, "", false, false, ""},
		{"GET", "/v1/runs", "", "", "", ListEnvelope, `{"total_count":0,"runs":[],"page":3}`, false, false, ""},
		{"GET", "/v1/customers/{id}/archive", "customer:id", "", "", ListNone, "", false, false, "deleted=true"},
		{"GET", "/v1/files/{path...}", "", "path", "path", ListNone, "", false, false, ""},
		{"POST", "/v1/account_links", "", "", "", ListNone, "", true, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			m, ok := ct.Router.Match(tt.method, tt.path)
			if !ok || m.Value.Honest == nil {
				t.Fatalf("want a declared route with its honest answer, have %v %+v", ok, m.Value)
			}
			h := m.Value.Honest
			var names []string
			for _, n := range h.Names {
				for _, p := range n.Params {
					names = append(names, n.Resource.Name+":"+p)
				}
			}
			if have := strings.Join(names, " "); have != tt.names {
				t.Errorf("names: want %q, have %q", tt.names, have)
			}
			if h.Unmodelled != tt.unmodelled || h.Object != tt.object {
				t.Errorf("unmodelled: want %q (%q), have %q (%q)", tt.unmodelled, tt.object, h.Unmodelled, h.Object)
			}
			if h.List != tt.list || string(h.Empty) != tt.empty {
				t.Errorf("list: want %d %s, have %d %s", tt.list, tt.empty, h.List, h.Empty)
			}
			if h.Write != tt.write || h.Safe != tt.safe {
				t.Errorf("write, safe: want %v %v, have %v %v", tt.write, tt.safe, h.Write, h.Safe)
			}
			var done []string
			if h.Done != nil {
				for _, c := range h.Done.When {
					done = append(done, c.Field+"="+c.Want)
				}
			}
			if have := strings.Join(done, " "); have != tt.done {
				t.Errorf("done: want %q, have %q", tt.done, have)
			}
		})
	}
}

// TestHonestListKeyRefused: a list_key that names no array member of
// the route's body is refused when the twin is compiled, saying so.
func TestHonestListKeyRefused(t *testing.T) {
	for _, body := range []string{`{"runs":3}`, `{"other":[]}`} {
		tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(honestTwin + `
[[routes]]
method = "GET"
path = "/v1/runs"
list_key = "runs"
body = '` + body + `'
`)}}, "honest")
		if err != nil {
			t.Fatal(err)
		}
		_, err = Compile(tw, Options{Dialect: stripe.New(), Scrub: scrubOwner})
		if err == nil || !strings.Contains(err.Error(), `list_key "runs"`) || !strings.Contains(err.Error(), "name the member that holds the page") {
			t.Errorf("body %s: want list_key refused, have %v", body, err)
		}
	}
}
