package session

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"unsafe"

	"github.com/wraithdev/wraith/twin/world"
)

// TestJournalHeaders: the journal keeps a request's headers in wire form
// with credentials already redacted, and an entry whose headers equal the
// previous entry's shares its bytes instead of holding a copy.
func TestJournalHeaders(t *testing.T) {
	agent := func() http.Header {
		return http.Header{
			"Authorization": {"Bearer sk_test_secret123"},
			"Cookie":        {"sid=s3cr3tcookie"},
			"User-Agent":    {"Stripe/v1 GoBindings/76.0.0"},
			"Accept":        {"application/json", "text/plain"},
		}
	}
	other := agent()
	other["User-Agent"] = []string{"curl/8"}
	var j Journal
	ents := []*Entry{{}, {}, {}, {}}
	for i, h := range []http.Header{agent(), agent(), other, other} {
		j.Begin(ents[i], h, 10)
	}
	for i, e := range ents {
		for _, secret := range []string{"sk_test_secret123", "s3cr3tcookie"} {
			if strings.Contains(string(e.ReqHeader), secret) {
				t.Errorf("entry %d keeps the credential %q: %q", i, secret, e.ReqHeader)
			}
		}
	}
	same := func(a, b Headers) bool {
		return len(a) > 0 && len(b) > 0 && unsafe.StringData(string(a)) == unsafe.StringData(string(b))
	}
	if !same(ents[0].ReqHeader, ents[1].ReqHeader) || !same(ents[2].ReqHeader, ents[3].ReqHeader) {
		t.Errorf("equal headers in consecutive entries: want one shared block, have copies")
	}
	if same(ents[1].ReqHeader, ents[2].ReqHeader) || ents[1].ReqHeader == ents[2].ReqHeader {
		t.Errorf("different headers: want different blocks, have one")
	}

	var have []string
	ents[0].ReqHeader.Each(func(k, v string) { have = append(have, k+"="+v) })
	want := []string{"Accept=application/json", "Accept=text/plain", "Authorization=Bearer [redacted]", "Cookie=[redacted]", "User-Agent=Stripe/v1 GoBindings/76.0.0"}
	if strings.Join(have, "|") != strings.Join(want, "|") {
		t.Errorf("want %q, have %q", want, have)
	}
	if v := ents[2].ReqHeader.Get("User-Agent"); v != "curl/8" {
		t.Errorf("Get(User-Agent): want curl/8, have %q", v)
	}
	if v := ents[2].ReqHeader.Get("Content-Type"); v != "" {
		t.Errorf("Get of an absent header: want \"\", have %q", v)
	}

	// A reset forgets the shared block: the next entry starts its own.
	j.clear()
	var e Entry
	j.Begin(&e, agent(), 10)
	if same(e.ReqHeader, ents[0].ReqHeader) || e.ReqHeader != ents[0].ReqHeader {
		t.Errorf("after a reset: want an equal, fresh block")
	}
}

// TestJournalHeadersNoAlloc: a request whose headers equal the previous
// one's costs the journal no header allocation.
func TestJournalHeadersNoAlloc(t *testing.T) {
	h := http.Header{"Accept": {"application/json"}, "Authorization": {"Basic dXNlcjpwdw=="}, "User-Agent": {"agent/1"}}
	var j Journal
	e := new(Entry)
	j.Begin(e, h, 2)
	allocs := testing.AllocsPerRun(100, func() { j.Begin(e, h, 2) })
	if allocs != 0 {
		t.Errorf("want 0 allocations per entry with unchanged headers, have %v", allocs)
	}
}

// TestJournalSharesRepeatedStrings: an entry whose path, query and host
// equal the previous entry's keeps the previous entry's strings, not the
// request's (which would keep its request line alive); a different one
// keeps its own.
func TestJournalSharesRepeatedStrings(t *testing.T) {
	fresh := func(s string) string { return strings.Clone(s) }
	var j Journal
	first := &Entry{Path: fresh("/v1/customers/cus_1"), Query: fresh("expand[]=x"), Host: fresh("127.0.0.1:8080")}
	j.Begin(first, nil, 10)
	again := &Entry{Path: fresh("/v1/customers/cus_1"), Query: fresh("expand[]=x"), Host: fresh("127.0.0.1:8080")}
	j.Begin(again, nil, 10)
	for _, f := range []struct{ name, a, b string }{{"path", first.Path, again.Path}, {"query", first.Query, again.Query}, {"host", first.Host, again.Host}} {
		if unsafe.StringData(f.a) != unsafe.StringData(f.b) {
			t.Errorf("%s: want the second entry to share the first's string", f.name)
		}
	}
	other := &Entry{Path: fresh("/v1/customers/cus_2"), Query: again.Query, Host: again.Host}
	j.Begin(other, nil, 10)
	if other.Path != "/v1/customers/cus_2" || unsafe.StringData(other.Path) == unsafe.StringData(again.Path) {
		t.Errorf("a different path must be kept as it is, have %q", other.Path)
	}
	j.clear()
	after := &Entry{Path: fresh("/v1/customers/cus_2")}
	j.Begin(after, nil, 10)
	if unsafe.StringData(after.Path) == unsafe.StringData(other.Path) {
		t.Errorf("after a reset an entry must not share a string with an entry from before it")
	}
}

// TestJournalLargeVersionKeptAsBytes: an entry refers to an entity
// version only when the version keeps at most BodyExcerpt bytes, so a
// journal of reads of one large version is charged no more than keeping
// each answer's excerpt.
func TestJournalLargeVersionKeptAsBytes(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 64<<10)
	ent := &world.Entity{ID: "prod_1", Resource: "product", Provenance: world.Fixture}
	ent.SetBody(big)
	const n = 100
	var byRef, byBytes Journal
	for range n {
		a := &Entry{Method: "GET", Path: "/v1/products/prod_1", Status: 200}
		if a.SetRespEntity(ent) {
			t.Fatal("a 64 KiB version was referred to")
		}
		a.SetRespBody(KeepBody(ent.Body(), false))
		byRef.Begin(a, nil, 1000)
		b := &Entry{Method: "GET", Path: "/v1/products/prod_1", Status: 200}
		b.SetRespBody(KeepBody(ent.Body(), false))
		byBytes.Begin(b, nil, 1000)
	}
	if byRef.Bytes() > byBytes.Bytes() {
		t.Errorf("%d reads of one 64 KiB version are charged %d bytes, more than keeping each answer's excerpt (%d)", n, byRef.Bytes(), byBytes.Bytes())
	}
	small := &world.Entity{ID: "prod_2", Resource: "product", Provenance: world.Handler}
	small.SetBody([]byte(`{"id":"prod_2"}`))
	var e Entry
	if !e.SetRespEntity(small) || string(e.RespBody().Bytes) != `{"id":"prod_2"}` || e.RespSize() != 15 {
		t.Errorf("a small version: want it referred to and given back, have %q (%d bytes)", e.RespBody().Bytes, e.RespSize())
	}
}
