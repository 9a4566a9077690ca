package session

import (
	"fmt"
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
