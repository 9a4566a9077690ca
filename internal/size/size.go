// Package size reads a number of bytes as people write one: "4096",
// "512MiB", "10 MB". It is the one syntax of every size Wraith takes, on
// the command line (wraith serve --max-memory) and in wraith-project.toml
// (max_memory), so it uses the standard library only and every layer may
// import it.
package size

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Syntax says what Parse accepts, for error messages.
const Syntax = `bytes (an integer) or a number with a unit, such as "512MiB" or "10MB" (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)`

// units are the units a size may carry: binary and decimal multiples.
// "B" comes last: every other unit ends in it.
var units = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"B", 1},
}

// ErrSyntax is returned (wrapped) for a string that is not a size.
var ErrSyntax = errors.New("not a size")

// Parse reads a whole number of bytes and an optional unit, with or
// without a space between. It refuses negative numbers, fractions and
// what would overflow int64.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	factor := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, factor = strings.TrimSpace(rest), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/factor {
		return 0, fmt.Errorf("%w: %q: use %s", ErrSyntax, s, Syntax)
	}
	return n * factor, nil
}

// Format writes n bytes in the largest binary unit that divides it, as
// Parse reads it back: 268435456 is "256MiB", 1000 is "1000".
func Format(n int64) string {
	for i := 3; i >= 0; i-- {
		if f := units[i].factor; n != 0 && n%f == 0 {
			return strconv.FormatInt(n/f, 10) + units[i].suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
