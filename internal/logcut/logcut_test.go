package logcut

import (
	"strings"
	"testing"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		name     string
		s        string
		limit    int
		want     string
		wantSize int
	}{
		{"short", "GET", Method, "GET", 0},
		{"at the limit", strings.Repeat("a", Method), Method, strings.Repeat("a", Method), 0},
		{"long", strings.Repeat("a", 5000), Method, strings.Repeat("a", Method), 5000},
		{"inside a character", "aaaaaaa€", 8, "aaaaaaa", 10},
		{"not UTF-8", strings.Repeat("\x80", 20), 8, strings.Repeat("\x80", 8), 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have, size := Cut(tc.s, tc.limit)
			if have != tc.want || size != tc.wantSize {
				t.Errorf("Cut(%q, %d): want %q, %d; have %q, %d", tc.s, tc.limit, tc.want, tc.wantSize, have, size)
			}
		})
	}
}
