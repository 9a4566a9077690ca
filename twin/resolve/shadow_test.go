package resolve

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestShadowedEmbeddedTwin(t *testing.T) {
	work, search := t.TempDir(), t.TempDir()
	embedded := fstest.MapFS{
		"checkout/twin.toml": {Data: []byte("format = 1\nname = \"checkout\"\n")},
		"billing/twin.toml":  {Data: []byte("format = 1\nname = \"billing\"\n")},
		"other/twin.toml":    {Data: []byte("format = 1\nname = \"other\"\n")},
	}
	packTwin(t, filepath.Join(work, "checkout.twin"), "checkout")
	writeTwin(t, filepath.Join(work, "twins", "billing"), "billing")
	writeTwin(t, filepath.Join(search, "other"), "other")
	writeTwin(t, filepath.Join(work, "twins", "mine"), "mine")
	r := New(work, search, embedded)

	tests := []struct {
		arg, where, shadows string
	}{
		{"checkout", filepath.Join(work, "checkout.twin"), "embedded"},
		{"billing", filepath.Join(work, "twins", "billing"), "embedded"},
		{"other", filepath.Join(search, "other"), "embedded"},
		{"mine", filepath.Join(work, "twins", "mine"), ""},
		{"./checkout.twin", filepath.Join(work, "checkout.twin"), ""}, // a path says what it means
		{"embedded:checkout", "embedded", ""},
		{"embedded:billing", "embedded", ""},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			src, err := r.Resolve(tt.arg)
			if err != nil {
				t.Fatal(err)
			}
			if src.Where != tt.where || src.Shadows != tt.shadows {
				t.Errorf("want %s shadowing %q, have %s shadowing %q", tt.where, tt.shadows, src.Where, src.Shadows)
			}
			w := src.ShadowWarning()
			if (w != "") != (tt.shadows != "") {
				t.Fatalf("want a warning: %v, have %q", tt.shadows != "", w)
			}
			if w != "" {
				for _, want := range []string{src.Where, "embedded:" + src.Name, "shadows the embedded twin"} {
					if !strings.Contains(w, want) {
						t.Errorf("warning: want %q in %q", want, w)
					}
				}
			}
		})
	}

	_, err := r.Resolve("embedded:mine")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "embedded twins: billing, checkout, other") {
		t.Errorf("embedded:mine: want ErrNotFound listing the embedded twins, have %v", err)
	}

	listed := map[string]string{}
	for _, s := range r.List() {
		listed[s.Name] = s.Shadows
	}
	want := map[string]string{"checkout": "embedded", "billing": "embedded", "other": "embedded", "mine": ""}
	for name, shadows := range want {
		if have, ok := listed[name]; !ok || have != shadows {
			t.Errorf("List: %s: want shadows %q, have %q (listed %v)", name, shadows, have, ok)
		}
	}
}
