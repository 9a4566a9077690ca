package rest

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
)

type items []string

func (it items) Len() int                            { return len(it) }
func (it items) ID(i int) string                     { return it[i] }
func (it items) BodyLen(i int) int                   { return len(it[i]) + 9 }
func (it items) AppendBody(dst []byte, i int) []byte { return append(dst, `{"id":"`+it[i]+`"}`...) }

// TestListEnvelope: an envelope list answers the page in its member,
// beside the envelope's other members; another list is a bare array
// with a Link header to its next page.
func TestListEnvelope(t *testing.T) {
	all := make(items, 31)
	for i := range all {
		all[i] = "e" + string(rune('a'+i%26))
	}
	link := func(string, int) string { return "http://h/x?page=2" }
	for _, tc := range []struct {
		name     string
		envelope *dialect.Envelope
		prefix   string
	}{
		{"array", nil, `[{"id":"ea"}`},
		{"envelope", dialect.NewEnvelope("entries", `{"entries":[],"total_count":0}`), `{"entries":[{"id":"ea"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, refused := New().List(&dialect.ListQuery{Params: map[string]any{}, Items: all, Envelope: tc.envelope, Link: link})
			if refused != nil {
				t.Fatal(refused)
			}
			body := string(page.Body)
			if !strings.HasPrefix(body, tc.prefix) || strings.Count(body, `"id"`) != 30 {
				t.Errorf("want %s... with the first page of 30, have %s", tc.prefix, body)
			}
			if tc.envelope != nil && !strings.HasSuffix(body, `,"total_count":0}`) {
				t.Errorf("want the envelope's other members kept, have %s", body)
			}
			if page.Link == "" {
				t.Error("want a Link header to the next page")
			}
		})
	}
	if dialect.NewEnvelope("entries", "[]") != nil || dialect.NewEnvelope("", "{}") != nil {
		t.Error("NewEnvelope: want nil for a body that is no object or no key")
	}
}
