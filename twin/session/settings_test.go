package session

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestPIIFields(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string // fmt of the result, or "error"
	}{
		{nil, "[]"},
		{[]string{}, "[]"},
		{[]string{"Email", "name", "email"}, "[email name]"},
		{[]string{"billing_details.email"}, "[billing_details.email]"},
		{[]string{""}, "error"},
		{[]string{"a b"}, "error"},
		{[]string{`x"`}, "error"},
		{make([]string, MaxPIIFields+1), "error"},
	} {
		have, err := PIIFields(tc.in)
		got := fmt.Sprint(have)
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("PIIFields(%q): want %s, have %s (%v)", tc.in, tc.want, got, err)
		}
	}
}

// TestPIIVerbatimSetting: the list is part of Equal, and a session, its
// reset and its fork all read it.
func TestPIIVerbatimSetting(t *testing.T) {
	a := Settings{Clock: Clock{Mode: ClockFixed}, PIIVerbatim: []string{"email"}}
	b := a
	b.PIIVerbatim = nil
	if a.Equal(b) || !a.Equal(a) {
		t.Errorf("Equal must compare PIIVerbatim: %v vs %v", a.PIIVerbatim, b.PIIVerbatim)
	}
	s := New("s", a, nil, true)
	check := func(what string, s *Session) {
		t.Helper()
		s.Do(func(st *State) {
			if fmt.Sprint(st.PIIVerbatim()) != "[email]" {
				t.Errorf("%s: want [email], have %v", what, st.PIIVerbatim())
			}
		})
	}
	check("new", s)
	s.Reset()
	check("reset", s)
	check("fork", s.Fork("f"))
}

// TestValidateNameDotSegments: a name is 1 to 128 characters of
// A-Z a-z 0-9 . _ : -, and never a dot segment, which a path would resolve away: the viewer's
// reset of ".." became POST /__wraith/reset, of every session.
func TestValidateNameDotSegments(t *testing.T) {
	long := strings.Repeat("a", MaxNameLen)
	for _, tc := range []struct {
		name  string
		valid bool
		why   string // a substring of the error
	}{
		{"agent-1", true, ""},
		{"a:b", true, ""},
		{"x.y", true, ""},
		{"...", true, ""},
		{".a", true, ""},
		{"a..", true, ""},
		{"_", true, ""},
		{long, true, ""},
		{".", false, "dot segment"},
		{"..", false, "dot segment"},
		{"%2e", false, "dot segment"},
		{"%2E", false, "dot segment"},
		{"%2E%2e", false, "dot segment"},
		{".%2e", false, "dot segment"},
		{"%2e.", false, "dot segment"},
		{"%2e%2e%2e", false, "character '%'"},
		{"%2f", false, "character '%'"},
		{"%2", false, "character '%'"},
		{"", false, "1 to 128"},
		{long + "a", false, "1 to 128"},
		{"a/b", false, "character '/'"},
		{"a b", false, "character ' '"},
	} {
		t.Run(fmt.Sprintf("%.20q", tc.name), func(t *testing.T) {
			err := ValidateName(tc.name)
			if have := err == nil; have != tc.valid {
				t.Fatalf("ValidateName(%q): want valid %v, have %v (%v)", tc.name, tc.valid, have, err)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, ErrInvalidName) {
				t.Errorf("ValidateName(%q): want an ErrInvalidName, have %v", tc.name, err)
			}
			if !strings.Contains(err.Error(), tc.why) {
				t.Errorf("ValidateName(%q): want %q in the error, have %q", tc.name, tc.why, err)
			}
		})
	}
}
