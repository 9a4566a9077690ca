package rate

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Limit
		ok   bool
	}{
		{"", Limit{}, true},
		{"10/s", Limit{10, time.Second}, true},
		{"2/m", Limit{2, time.Minute}, true},
		{"999999999/s", Limit{999999999, time.Second}, true},
		{"1000000000/s", Limit{}, false},
		{"0/s", Limit{}, false},
		{"01/s", Limit{}, false},
		{"+1/s", Limit{}, false},
		{"-1/s", Limit{}, false},
		{"10/h", Limit{}, false},
		{"10", Limit{}, false},
		{"/s", Limit{}, false},
		{"10/s/s", Limit{}, false},
	} {
		t.Run(c.in, func(t *testing.T) {
			have, err := Parse(c.in)
			if (err == nil) != c.ok || have != c.want {
				t.Fatalf("Parse(%q): want %v ok=%v, have %v err=%v", c.in, c.want, c.ok, have, err)
			}
			if c.ok && have.String() != c.in {
				t.Fatalf("String: want %q, have %q", c.in, have.String())
			}
		})
	}
}
