package engine

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// scopedTwin has Stripe-shaped resources with parents: tax ids, read at
// /v1/tax_ids/{id} and under their customer, and persons, which live only
// under their account.
const scopedTwin = `format = 1
name = "scoped"
[errors.not_found]
status = 404
body = '''{"error":{"code":"resource_missing","message":"No such {object}: '{id}'","type":"invalid_request_error"}}'''

[[resources]]
name = "tax_id"
collection = "/v1/tax_ids"
item = "/v1/tax_ids/{id}"
id_prefix = "txi_"
skeleton = '{"id":"","object":"tax_id","value":"","customer":null}'
delete = "tombstone"
deleted_body = '{"id":"{id}","object":"tax_id","deleted":true}'
parents = ["customer"]
parent_defaults = { customer = "" }
create_paths = ["/v1/customers/{customer}/tax_ids"]
list_paths = ["/v1/customers/{customer}/tax_ids"]
read_paths = ["/v1/customers/{customer}/tax_ids/{id}"]

[[resources]]
name = "person"
collection = "/v1/accounts/{account}/persons"
item = "/v1/accounts/{account}/persons/{person}"
id_prefix = "person_"
skeleton = '{"id":"","object":"person","first_name":null}'
delete = "tombstone"
deleted_body = '{"id":"{id}","object":"person","deleted":true}'
parents = ["account"]

[[resources]]
name = "customer"
collection = "/v1/customers"
item = "/v1/customers/{id}"
id_prefix = "cus_"
skeleton = '{"id":"","object":"customer"}'
`

func startScoped(tb testing.TB) *httptest.Server {
	tb.Helper()
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(scopedTwin)}}, "scoped")
	if err != nil {
		tb.Fatal(err)
	}
	e, err := New(tw, Options{
		UnknownEntity: NotFound,
		Scrubber:      scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{}),
		Defaults:      session.Settings{Seed: 1, Clock: session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(e)
	tb.Cleanup(srv.Close)
	return srv
}

func scopedCall(tb testing.TB, srv *httptest.Server, method, path string, form url.Values) (int, map[string]any) {
	tb.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
	return resp.StatusCode, m
}

func listIDs(m map[string]any) []string {
	var out []string
	data, _ := m["data"].([]any)
	for _, d := range data {
		out = append(out, d.(map[string]any)["id"].(string))
	}
	return out
}

func TestScopedByParent(t *testing.T) {
	srv := startScoped(t)
	status, tx := scopedCall(t, srv, "POST", "/v1/customers/cus_A/tax_ids", url.Values{"value": {"DE123"}})
	id, _ := tx["id"].(string)
	if status != 200 || !strings.HasPrefix(id, "txi_") {
		t.Fatalf("create under cus_A: want 200 and a txi_ id, have %d %v", status, tx)
	}
	checks := []struct {
		method, path string
		want         int
	}{
		{"GET", "/v1/customers/cus_A/tax_ids/" + id, 200},
		{"GET", "/v1/tax_ids/" + id, 200},
		{"GET", "/v1/customers/cus_B/tax_ids/" + id, 404},
	}
	for _, c := range checks {
		if have, body := scopedCall(t, srv, c.method, c.path, nil); have != c.want {
			t.Errorf("%s %s: want %d, have %d %v", c.method, c.path, c.want, have, body)
		}
	}
	if _, l := scopedCall(t, srv, "GET", "/v1/customers/cus_A/tax_ids", nil); strings.Join(listIDs(l), ",") != id {
		t.Errorf("list under cus_A: want [%s], have %v", id, listIDs(l))
	}
	if _, l := scopedCall(t, srv, "GET", "/v1/customers/cus_B/tax_ids", nil); len(listIDs(l)) != 0 {
		t.Errorf("list under cus_B: want none, have %v", listIDs(l))
	}
	if _, l := scopedCall(t, srv, "GET", "/v1/tax_ids", nil); strings.Join(listIDs(l), ",") != id {
		t.Errorf("list at /v1/tax_ids: want [%s], have %v", id, listIDs(l))
	}

	status, p := scopedCall(t, srv, "POST", "/v1/accounts/acct_A/persons", url.Values{"first_name": {"Ada"}})
	pid, _ := p["id"].(string)
	if status != 200 || !strings.HasPrefix(pid, "person_") {
		t.Fatalf("create person: want 200 and a person_ id, have %d %v", status, p)
	}
	if have, body := scopedCall(t, srv, "GET", "/v1/accounts/acct_B/persons/"+pid, nil); have != 404 || !strings.Contains(body["error"].(map[string]any)["message"].(string), "'"+pid+"'") {
		t.Errorf("person under acct_B: want 404 naming %s, have %d %v", pid, have, body)
	}
	if have, body := scopedCall(t, srv, "DELETE", "/v1/accounts/acct_A/persons/"+pid, nil); have != 200 || body["id"] != pid || body["deleted"] != true {
		t.Errorf("delete person: want the tombstone of %s, have %d %v", pid, have, body)
	}
}
