package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestInspectCommand(t *testing.T) {
	t.Parallel()
	f, stdout, stderr := testFactory(t.TempDir(), nil)
	if code := run([]string{"inspect", "checkout"}, f); code != exitOK {
		t.Fatalf("inspect checkout: exit %d: %s", code, stderr)
	}
	text := stdout.String()
	for _, want := range []string{
		"twin         checkout",
		"source       embedded",
		"digest       " + embeddedDigest(t, "checkout"),
		"recorded_at  2026-10-14T09:33:24Z",
		"coverage     28 of 34 routes recorded (82.4%)",
		"ROUTES (34)",
		"GET     /v1/balance ",
		"plain (declared)",
		"POST    /v1/payment_intents/{id}/capture       action            payment_intent    capture    2",
		"RESOURCES (6)",
		"customer          cus_       /v1/customers",
		"FIXTURES (2)",
		"baseline    8         customer=3,payment_method=1,price=2,product=2",
		"RECORDINGS (",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("inspect text: want %q in\n%s", want, text)
		}
	}

	f, stdout, stderr = testFactory(t.TempDir(), nil)
	if code := run([]string{"inspect", "billing", "--format", "json"}, f); code != exitOK {
		t.Fatalf("inspect billing --format json: exit %d: %s", code, stderr)
	}
	var doc struct {
		Twin, Source, Digest string
		RecordedAt           *string `json:"recorded_at"`
		Coverage             struct{ Recorded, Routes int }
		Routes               []struct{ Method, Template, Kind string }
		Resources            []struct{ Name, Delete string }
		FixtureImports       []string `json:"fixture_imports"`
		Fixtures             []struct {
			Name     string
			Entities int
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("inspect --format json: %v\n%s", err, stdout)
	}
	if doc.Twin != "billing" || doc.Source != "embedded" || doc.Digest != embeddedDigest(t, "billing") || doc.RecordedAt == nil ||
		doc.Coverage.Routes != len(doc.Routes) || doc.Coverage.Recorded == 0 || len(doc.Resources) == 0 ||
		len(doc.FixtureImports) != 1 || doc.FixtureImports[0] != "checkout" || len(doc.Fixtures) != 1 {
		t.Errorf("inspect billing --format json: have %+v", doc)
	}
}

func TestInspectUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect"}, "takes TWIN"},
		{[]string{"inspect", "checkout", "--format", "yaml"}, "--format must be text or json"},
		{[]string{"inspect", "nope"}, `no twin named "nope"`},
		{[]string{"diff", "checkout"}, "takes two twins"},
		{[]string{"diff", "checkout", "billing", "--format", "xml"}, "--format must be text or json"},
		{[]string{"diff", "checkout", "nope"}, `no twin named "nope"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			f, _, stderr := testFactory(t.TempDir(), nil)
			if code := run(tc.args, f); code != exitUsage {
				t.Fatalf("want exit %d, have %d: %s", exitUsage, code, stderr)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("want %q in %q", tc.want, stderr)
			}
		})
	}
}

func TestDiffCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// The embedded checkout, packed: the same twin in another container.
	f, _, stderr := testFactory(dir, nil)
	if code := run([]string{"pack", "checkout", "-o", "packed.twin"}, f); code != exitOK {
		t.Fatalf("pack: %s", stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"same", []string{"diff", "checkout", "packed.twin"}, exitOK, []string{"same digest: the twins are identical"}},
		{"same, exit code", []string{"diff", "--exit-code", "checkout", "packed.twin"}, exitOK, []string{"identical"}},
		{"different", []string{"diff", "billing", "checkout"}, exitOK, []string{
			"a  billing  sha256:", "b  checkout  sha256:",
			"manifest\n  ~ name \"billing\" -> \"checkout\"",
			"routes\n", "  + GET /v1/balance  (plain, declared)",
			"  - POST /v1/invoices/{id}/pay  (action invoice pay)",
			"resources\n", "  + checkout.session", "  - invoice",
			"exchanges\n", "  + 2026-10-14-customers-catalog/0  GET /v1/balance",
			"fixtures\n", "  + happy-path", "  ~ baseline: ",
		}},
		{"different, exit code", []string{"diff", "--exit-code", "billing", "checkout"}, exitRuntime, []string{"routes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, stdout, stderr := testFactory(dir, nil)
			if code := run(tc.args, f); code != tc.code {
				t.Fatalf("want exit %d, have %d: %s", tc.code, code, stderr)
			}
			if stderr.Len() != 0 {
				t.Errorf("want nothing on stderr, have %q", stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("want %q in\n%s", w, stdout)
				}
			}
		})
	}

	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"diff", "billing", "checkout", "--format", "json"}, f); code != exitOK {
		t.Fatalf("diff --format json: exit %d: %s", code, stderr)
	}
	var doc struct {
		SourceA string `json:"source_a"`
		Same    bool
		A, B    struct{ Twin, Digest string }
		Routes  struct {
			Added, Removed []struct{ Method, Template string }
		}
		Fixtures struct {
			Added   []string
			Changed []struct{ Name string }
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("diff --format json: %v\n%s", err, stdout)
	}
	if doc.Same || doc.SourceA != "embedded" || doc.A.Twin != "billing" || doc.B.Twin != "checkout" ||
		len(doc.Routes.Added) == 0 || len(doc.Routes.Removed) == 0 || len(doc.Fixtures.Added) != 1 {
		t.Errorf("diff --format json: have %+v", doc)
	}
}
