package size

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"4096", 4096}, {"200MiB", 200 << 20}, {"2GiB", 2 << 30}, {"512MB", 512e6},
		{"10 KB", 10e3}, {" 1TiB ", 1 << 40}, {"7B", 7}, {"8388607TiB", 8388607 << 40},
	}
	for _, tt := range tests {
		have, err := Parse(tt.in)
		if err != nil || have != tt.want {
			t.Errorf("Parse(%q): want %d, have %d (%v)", tt.in, tt.want, have, err)
		}
	}
	for _, in := range []string{"", "-1", "1.5GiB", "12 parsecs", "200mib", "MiB", "8388608TiB", "99999999999999999999", "0x10"} {
		if n, err := Parse(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q): want ErrSyntax, have %d, %v", in, n, err)
		}
	}
}

func TestFormatRoundTrips(t *testing.T) {
	for _, n := range []int64{0, 1, 1000, 1024, 256 << 20, 3 << 30, 1<<20 + 1} {
		s := Format(n)
		back, err := Parse(s)
		if err != nil || back != n {
			t.Errorf("Format(%d) = %q, which Parse reads as %d (%v)", n, s, back, err)
		}
	}
	if have := Format(256 << 20); have != "256MiB" {
		t.Errorf("Format(256 MiB): want 256MiB, have %q", have)
	}
}
