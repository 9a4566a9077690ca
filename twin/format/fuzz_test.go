package format_test

import (
	"errors"
	"io/fs"
	"path"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// fuzzTwin returns a twin folder holding a few of the embedded checkout
// twin's recordings and a fixture set, so that a fuzzed twin.toml is
// loaded together with real exchanges and entities.
func fuzzTwin(tb testing.TB) fstest.MapFS {
	tb.Helper()
	src := embedded.FS()
	const rec = "checkout/recordings/2026-10-14-customers-catalog"
	files := map[string]string{
		"fixtures/baseline.json": "checkout/fixtures/baseline.json",
	}
	for _, n := range []string{"0", "1", "2", "8", "9", "11", "12"} {
		files["recordings/catalog/"+n+".json"] = path.Join(rec, n+".json")
	}
	m := fstest.MapFS{}
	for to, from := range files {
		b, err := fs.ReadFile(src, from)
		if err != nil {
			tb.Fatal(err)
		}
		m[to] = &fstest.MapFile{Data: b}
	}
	return m
}

func embeddedManifest(tb testing.TB, twin string) []byte {
	tb.Helper()
	b, err := fs.ReadFile(embedded.FS(), twin+"/twin.toml")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

var manifestSeeds = []string{
	``,
	`format = 1`,
	`format = 1
name = "mini"`,
	`format = 1
name = "mini"
[[resources]]
name = "customer"
collection = "/v1/customers"
item = "/v1/customers/{id}"
id_prefix = "cus_"
skeleton = '{"id":"","object":"customer","status":"new"}'
[[resources.actions]]
name = "close"
from = ["new"]
[[resources.actions.rules]]
set = { status = "closed", closed_at = "$now+60", copy = "$.status" }`,
	`format = 1
name = "mini"
[errors.not_found]
status = 404
body = '{"error":{"message":"No such {object}: {id}"}}'`,
	`format = 1
name = "../../etc"`,
	`format = 1
name = "mini"
colour = "blue"`,
	`format = 1
name = "mini"
[fixtures]
imports = ["../x", "checkout"]`,
	`format = 1
name = "mini"
[[routes]]
method = "BREW"
path = "coffee"`,
	`format = 1
name = "mini"
[[resources]]
name = "customer"
collection = "/v1/customers"
item = "/v1/customers/{id}/{id}"
id_prefix = ""
skeleton = '[1,2]'
delete = "tombstone"
deleted_body = '{'
[[resources.create]]
set = { status = "$now+" }`,
	`format = 1
name = "mini"
[[resources]]
name = "a"
collection = "/"
item = "//{id}"
id_prefix = "a_"
skeleton = '{}'
[[resources]]
name = "a"
collection = "/"
item = "//{id}"
id_prefix = "a_"
skeleton = '{}'`,
	"format = 1\nname = \"mini\"\n[[resources]]\nname = \"\x00\"",
	`format = "1"`,
	`[[[`,
	`a = { b = { c = { d = { e = 1 } } } }`,
}

// FuzzLoad loads twin.toml files the fuzzer makes up, beside real
// recordings and fixtures. Whatever the file holds, Load never panics and
// reports every rejection as Problems; a twin it accepts has a valid name
// and builds an engine without panicking.
func FuzzLoad(f *testing.F) {
	for _, s := range manifestSeeds {
		f.Add([]byte(s))
	}
	f.Add(embeddedManifest(f, "checkout"))
	f.Add(embeddedManifest(f, "billing"))
	base := fuzzTwin(f)
	checkout, err := format.Load(mustSub(f, "checkout"), "embedded twin checkout")
	if err != nil {
		f.Fatal(err)
	}
	importer := func(name string) (*format.Twin, error) {
		if name == "checkout" {
			return checkout, nil
		}
		return nil, errors.New("no such twin")
	}
	f.Fuzz(func(t *testing.T, manifest []byte) {
		fsys := fstest.MapFS{"twin.toml": &fstest.MapFile{Data: manifest}}
		for k, v := range base {
			fsys[k] = v
		}
		tw, err := format.Load(fsys, "fuzz")
		if err != nil {
			var probs format.Problems
			if !errors.As(err, &probs) || len(probs) == 0 {
				t.Fatalf("Load: want Problems, have %T: %v", err, err)
			}
			return
		}
		if !format.ValidName(tw.Name()) {
			t.Fatalf("Load accepted the invalid name %q", tw.Name())
		}
		// Building the engine compiles routes, rules and worlds from the
		// manifest; it may refuse, but must not panic.
		engine.New(tw, engine.Options{
			Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{Fields: tw.Manifest.PII.Fields, Verbatim: tw.Manifest.PII.Verbatim}),
			Import:   importer,
			Now:      func() time.Time { return time.Unix(1800000000, 0) },
		})
	})
}

func mustSub(tb testing.TB, twin string) fs.FS {
	tb.Helper()
	sub, err := fs.Sub(embedded.FS(), twin)
	if err != nil {
		tb.Fatal(err)
	}
	return sub
}
