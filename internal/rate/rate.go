// Package rate is the one home of Wraith's rate-limit syntax, "N/s" or
// "N/m": the project manifest checks it, serve checks its flag, the
// engine and the control plane turn it into a limit. It uses the standard
// library only, so every layer may import it.
package rate

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Limit is a parsed rate: N requests per Window. The zero Limit is no
// limit.
type Limit struct {
	N      int
	Window time.Duration
}

// maxN bounds N to nine digits, as the syntax always has.
const maxN = 999_999_999

// Syntax describes what Parse accepts, for error messages.
const Syntax = `N/s or N/m with N from 1 to 999999999, e.g. "10/s"`

// Parse reads "N/s" or "N/m". The empty string is no limit.
func Parse(s string) (Limit, error) {
	if s == "" {
		return Limit{}, nil
	}
	num, unit, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || n > maxN || num[0] == '+' || num[0] == '0' || (unit != "s" && unit != "m") {
		return Limit{}, fmt.Errorf("%q is not a rate: use %s", s, Syntax)
	}
	w := time.Second
	if unit == "m" {
		w = time.Minute
	}
	return Limit{N: n, Window: w}, nil
}

// IsZero reports whether l is no limit.
func (l Limit) IsZero() bool { return l.N == 0 }

// String is l in the syntax Parse reads; "" for no limit.
func (l Limit) String() string {
	switch {
	case l.N == 0:
		return ""
	case l.Window == time.Minute:
		return strconv.Itoa(l.N) + "/m"
	default:
		return strconv.Itoa(l.N) + "/s"
	}
}
