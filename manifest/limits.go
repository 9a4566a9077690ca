package manifest

import (
	"math"

	"github.com/wraithdev/wraith/internal/size"
)

// The serve limits a manifest may set (journal_limit, max_sessions,
// max_entities, max_body, max_memory). Each is forwarded as the flag of
// the same name; left out, the child's default applies. The bounds are
// wraith-twin's own, checked here so that `up` refuses a bad value with
// its line before any child starts.

// count reads a whole number of at least min, such as journal_limit = 200.
func (p *parser) count(path string, v any, min int64) *int64 {
	if v == nil {
		return nil
	}
	n, ok := p.integer(path, v)
	if !ok {
		return nil
	}
	if n < min || n > math.MaxInt32 {
		p.problem(path, "%d is out of range: use a whole number from %d to %d", n, min, math.MaxInt32)
		return nil
	}
	return &n
}

// size reads a number of bytes of at least min: an integer, or a string
// with a unit such as "512MiB" or "10MB".
func (p *parser) size(path string, v any, min int64) *int64 {
	var n int64
	switch v := v.(type) {
	case nil:
		return nil
	case int64:
		n = v
	case string:
		var ok bool
		if n, ok = parseSize(v); !ok {
			p.problem(path, "%q is not a size: use %s", v, size.Syntax)
			return nil
		}
	default:
		p.problem(path, "must be a size, bytes (an integer) or a string such as \"512MiB\", not %s", describe(v))
		return nil
	}
	if n < min {
		p.problem(path, "%d bytes is too small: use %d or more", n, min)
		return nil
	}
	return &n
}

// parseSize parses "512MiB", "10 MB" or "4096" as wraith-twin's flags do
// (package size is the syntax's one home).
func parseSize(s string) (int64, bool) {
	n, err := size.Parse(s)
	return n, err == nil
}
