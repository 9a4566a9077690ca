package format

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestOmitDropsOperations(t *testing.T) {
	r := Resource{Name: "balance_transaction", Collection: "/v1/balance_transactions", Item: "/v1/balance_transactions/{id}", Delete: "none", Omit: []string{"create", "update"}}
	var have []string
	for _, op := range r.Operations() {
		have = append(have, op.Method+" "+op.Op)
	}
	if want := "GET list,GET retrieve"; strings.Join(have, ",") != want {
		t.Errorf("want %s, have %s", want, strings.Join(have, ","))
	}
}

func TestOmitValidates(t *testing.T) {
	for _, tc := range []struct{ omit, want string }{
		{`["list", "create", "update"]`, ""},
		{`["retrieve"]`, `omit "retrieve": want distinct values`},
		{`["create", "create"]`, `omit "create": want distinct values`},
	} {
		t.Run(tc.omit, func(t *testing.T) {
			fsys := fstest.MapFS{"twin.toml": {Data: []byte(strings.Replace(goodManifest, "id_prefix", "omit = "+tc.omit+"\nid_prefix", 1))}}
			_, err := Load(fsys, "demo")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("want no error, have %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("want an error with %q, have %v", tc.want, err)
			}
		})
	}
}
