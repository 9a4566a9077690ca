package canon

import (
	"fmt"
	"strconv"
	"strings"
)

// NumberError is a number in a JSON body that no 64-bit float holds
// (1e999): stored, it would be served as text that JSON decoders refuse
// or turn into infinity.
type NumberError struct {
	Param string // where, as a form key: metadata[a], items[0][qty]
	Text  string
	path  []string // Param's segments, innermost first, while unwinding
}

func (e *NumberError) Error() string {
	return fmt.Sprintf("json body: the number %s at %s is out of range: a number must fit a 64-bit float (magnitude below about 1.8e308)", e.Text, e.Param)
}

// param sets Param from the segments gathered while unwinding.
func (e *NumberError) param() {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		if i == len(e.path)-1 {
			b.WriteString(e.path[i])
			continue
		}
		b.WriteString("[" + e.path[i] + "]")
	}
	e.Param, e.path = b.String(), nil
}

// Number reports whether s is a JSON number (RFC 8259 grammar: no sign
// but a leading minus, no leading zeros, no hex, NaN, Inf or underscores)
// that a 64-bit float holds. Numbers too small for a float are fine: they
// read as zero, which is finite.
func Number(s string) bool {
	var p jparser
	p.in = []byte(s)
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return false
	}
	if p.number() != nil || p.pos != len(s) {
		return false
	}
	return fitsFloat(s)
}

// fitsFloat reports whether the JSON number text s is within the range of
// a float64. Without an exponent, a number of at most 300 digits cannot
// pass it, which is every number an API sends: those cost no parse.
func fitsFloat[T string | []byte](s T) bool {
	if len(s) <= 300 && !hasExponent(s) {
		return true
	}
	_, err := strconv.ParseFloat(string(s), 64)
	return err == nil
}

func hasExponent[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			return true
		}
	}
	return false
}
