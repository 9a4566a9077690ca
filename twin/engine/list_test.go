package engine

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/resolve"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// newEmbedded builds an engine for an embedded twin, with a deterministic
// clock.
func newEmbedded(tb testing.TB, name string, opts Options) *Engine {
	tb.Helper()
	res := resolve.New(tb.TempDir(), "", embedded.FS())
	src, err := res.Resolve(name)
	if err != nil {
		tb.Fatal(err)
	}
	t, err := src.Load()
	if err != nil {
		tb.Fatal(err)
	}
	opts.Scrubber = scrub.New(scrub.DeriveKey([]byte(t.Digest)), scrub.Policy{})
	opts.Import = func(name string) (*format.Twin, error) {
		s, err := res.Resolve(name)
		if err != nil {
			return nil, err
		}
		return s.Load()
	}
	opts.Defaults.Clock = session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}
	e, err := New(t, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// TestNestedListPages: a customer's tax ids page exactly as a top-level
// Stripe list does. Before, a parent-scoped list ignored limit and the
// cursors and always answered the first 10.
func TestNestedListPages(t *testing.T) {
	url := httpTwin(t, newEmbedded(t, "stripe", Options{}))
	ctx, h := context.Background(), sessionHeader("taxes")
	cus := send(t, ctx, "POST", url+"/v1/customers", formType, "description=x", h)
	if cus.status != http.StatusOK {
		t.Fatalf("create customer: want 200, have %d %.300s", cus.status, cus.body)
	}
	base := url + "/v1/customers/" + cus.json["id"].(string) + "/tax_ids"
	const n = 25
	created := map[string]bool{}
	for i := range n {
		rep := send(t, ctx, "POST", base, formType, fmt.Sprintf("type=eu_vat&value=DE%09d", i), h)
		if rep.status != http.StatusOK {
			t.Fatalf("create tax id %d: want 200, have %d %.300s", i, rep.status, rep.body)
		}
		created[rep.json["id"].(string)] = true
	}
	page := func(query string) (ids []string, more bool, url string) {
		t.Helper()
		rep := send(t, ctx, "GET", base+"?"+query, "", "", h)
		if rep.status != http.StatusOK {
			t.Fatalf("list ?%s: want 200, have %d %.300s", query, rep.status, rep.body)
		}
		for _, d := range rep.json["data"].([]any) {
			ids = append(ids, d.(map[string]any)["id"].(string))
		}
		more, _ = rep.json["has_more"].(bool)
		url, _ = rep.json["url"].(string)
		return ids, more, url
	}
	var all []string
	sizes := []int{}
	for query := "limit=10"; ; {
		ids, more, u := page(query)
		if want := base[len(url):]; u != want {
			t.Errorf("url: want %s, have %s", want, u)
		}
		sizes = append(sizes, len(ids))
		all = append(all, ids...)
		if !more {
			break
		}
		if len(sizes) > n {
			t.Fatal("has_more never ends")
		}
		query = "limit=10&starting_after=" + ids[len(ids)-1]
	}
	if fmt.Sprint(sizes) != "[10 10 5]" {
		t.Errorf("page sizes: want [10 10 5], have %v", sizes)
	}
	seen := map[string]bool{}
	for _, id := range all {
		if !created[id] || seen[id] {
			t.Errorf("listed %s: not created, or twice", id)
		}
		seen[id] = true
	}
	if len(seen) != n {
		t.Errorf("pages listed %d distinct tax ids, want %d", len(seen), n)
	}
	// ending_before pages back: the 10 before the second page's first.
	second, _, _ := page("limit=10&starting_after=" + all[9])
	back, more, _ := page("limit=10&ending_before=" + second[0])
	if fmt.Sprint(back) != fmt.Sprint(all[:10]) || more {
		t.Errorf("ending_before %s: want the first page and has_more false, have %v %v", second[0], back, more)
	}
	if ids, _, _ := page("limit=100"); len(ids) != n {
		t.Errorf("limit=100: want %d, have %d", n, len(ids))
	}
	for _, q := range []string{"limit=0", "limit=101", "limit=x", "starting_after=txi_nope"} {
		rep := send(t, ctx, "GET", base+"?"+q, "", "", h)
		if rep.status != http.StatusBadRequest {
			t.Errorf("?%s: want 400, have %d %.200s", q, rep.status, rep.body)
		}
	}
}
