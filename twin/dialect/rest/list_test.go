package rest

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/world"
)

// TestListEnvelope: an envelope list answers the page in its member,
// beside the envelope's other members; another list is a bare array
// with a Link header to its next page.
func TestListEnvelope(t *testing.T) {
	all := make([]*world.Entity, 31)
	for i := range all {
		id := "e" + string(rune('a'+i%26))
		all[i] = &world.Entity{ID: id}
		all[i].SetBody([]byte(`{"id":"` + id + `"}`))
	}
	for _, tc := range []struct {
		name     string
		envelope *dialect.Envelope
		prefix   string
	}{
		{"array", nil, `[{"id":"ea"}`},
		{"envelope", dialect.NewEnvelope("entries", `{"entries":[],"total_count":0}`), `{"entries":[{"id":"ea"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, refused := New().List(dialect.ListQuery{Params: map[string]any{}, Items: all, Envelope: tc.envelope, Here: dialect.Here{Host: "h", Path: "/x"}})
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
			if want := `<http://h/x?page=2>; rel="next"`; !strings.HasPrefix(page.Link, want) {
				t.Errorf("want a Link header to the next page, %s..., have %q", want, page.Link)
			}
		})
	}
	if dialect.NewEnvelope("entries", "[]") != nil || dialect.NewEnvelope("", "{}") != nil {
		t.Error("NewEnvelope: want nil for a body that is no object or no key")
	}
}
