// Package session holds session namespaces: each agent's isolated world
// inside one served twin.
//
// A session is named by the X-Wraith-Session header (or a path prefix or
// credential, see SPEC §10). It owns everything stateful: the changes it
// made to its starting world (an overlay over a shared, immutable
// world.World), its id generator, its clock, its idempotency cache and its
// counters. Sessions never share mutable state, so nothing one session does
// can change a byte another sees. Each session has its own lock, held
// shared by reads (which run side by side) and exclusive by everything
// that changes the session (which runs alone, in order), and the store
// finds them in a sync.Map whose lookups take no lock (creations and
// deletions take one store mutex), so there is no global lock on the
// request path.
package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wraithdev/wraith/internal/rate"
)

// Clock modes.
const (
	ClockReal          = "real"
	ClockDeterministic = "deterministic"
	ClockFixed         = "fixed"
)

// DefaultName is the namespace of requests without a session header.
const DefaultName = "default"

// Clock is a session clock's settings.
type Clock struct {
	Mode      string
	BaseEpoch int64         // unix seconds; unused by real clocks
	Step      time.Duration // deterministic advance per business request
}

// Settings are what a session is provisioned with. Two sessions with equal
// settings answer the same request sequence with the same bytes.
type Settings struct {
	Fixture string // qualified TWIN:SET, or "" for none
	Seed    uint64
	Clock   Clock
	// FaultProfile names the fault profile the session runs under; ""
	// and "none" are no faults.
	FaultProfile string
	// RateLimit is the session's rate limit, on its own clock; zero for
	// none.
	RateLimit rate.Limit
	// PIIVerbatim names PII-shaped fields this session's synthesized
	// answers serve as they are, on top of the twin's policy and the
	// serve-wide --pii-verbatim: lower-case, sorted, without repeats (see
	// PIIFields). Never written to, so sessions may share it.
	PIIVerbatim []string
}

// Equal reports whether two settings are the same.
func (s Settings) Equal(o Settings) bool {
	if s.Fixture != o.Fixture || s.Seed != o.Seed || s.Clock.Mode != o.Clock.Mode || StepOf(s.Clock.Mode, s.Clock.Step) != StepOf(o.Clock.Mode, o.Clock.Step) {
		return false
	}
	if profileOrNone(s.FaultProfile) != profileOrNone(o.FaultProfile) || s.RateLimit != o.RateLimit {
		return false
	}
	if !slices.Equal(s.PIIVerbatim, o.PIIVerbatim) {
		return false
	}
	return s.Clock.Mode == ClockReal || s.Clock.BaseEpoch == o.Clock.BaseEpoch
}

func profileOrNone(p string) string {
	if p == "" {
		return "none"
	}
	return p
}

// MaxPIIFields bounds a session's PIIVerbatim list; each name is at most
// MaxNameLen bytes. Checking a field against the list is a scan, so the
// bound keeps it cheap.
const MaxPIIFields = 64

// PIIFields returns field names as Settings.PIIVerbatim holds them:
// lower-case (the scrubber matches names regardless of case), sorted and
// without repeats, so that two lists naming the same fields are Equal. It
// refuses an empty name, one longer than MaxNameLen or holding anything
// but A-Z a-z 0-9 _ - ., and more than MaxPIIFields names.
func PIIFields(names []string) ([]string, error) {
	if len(names) > MaxPIIFields {
		return nil, fmt.Errorf("%d field names: at most %d", len(names), MaxPIIFields)
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n == "" || len(n) > MaxNameLen {
			return nil, fmt.Errorf("field name %q: want 1 to %d characters, such as email", n, MaxNameLen)
		}
		for i := 0; i < len(n); i++ {
			if c := n[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
				return nil, fmt.Errorf("field name %q: character %q is not one of A-Z a-z 0-9 _ - .", n, c)
			}
		}
		out = append(out, strings.ToLower(n))
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// MaxEpoch is the latest time, in unix seconds, a session clock reaches
// (2199-12-31T23:59:59Z). Clocks count nanoseconds in an int64, which
// overflows in 2262; bounding epochs well before that keeps every clock
// move and deterministic step from wrapping around.
const MaxEpoch = 7258118399

// ValidClockMode reports whether m is a clock mode.
func ValidClockMode(m string) bool {
	return m == ClockReal || m == ClockDeterministic || m == ClockFixed
}

// MaxNameLen is the longest session name.
const MaxNameLen = 128

// ErrInvalidName is returned by ValidateName.
var ErrInvalidName = errors.New("invalid session name")

// ValidateName checks a session name: 1–128 characters of [A-Za-z0-9._:-],
// and not a dot segment ("." or "..", or either percent-encoded). A name
// is put in paths (the /__s/{session}/ prefix, the control plane's
// /__wraith/session/{session}/...), where clients, proxies and browsers
// resolve a dot segment away: the viewer's reset of a session named ".."
// would become POST /__wraith/reset, which resets every session. No name
// may be one, wherever it comes from.
func ValidateName(name string) error {
	if len(name) == 0 || len(name) > MaxNameLen {
		return fmt.Errorf("%w: must be 1 to %d characters, got %d", ErrInvalidName, MaxNameLen, len(name))
	}
	if dotSegment(name) {
		return fmt.Errorf("%w: %q is a dot segment, which paths resolve away (the session could not be named in a control path): name the session otherwise, such as agent-1", ErrInvalidName, name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return fmt.Errorf("%w: character %q at position %d is not one of A-Z a-z 0-9 . _ : -", ErrInvalidName, c, i)
		}
	}
	return nil
}

// dotSegment reports whether s is "." or "..", each dot written as is or
// as %2e (either case), which URL parsers treat as the same dot segment.
func dotSegment(s string) bool {
	dots := 0
	for i := 0; i < len(s); dots++ {
		switch {
		case s[i] == '.':
			i++
		case i+2 < len(s) && s[i] == '%' && s[i+1] == '2' && (s[i+2]|0x20) == 'e':
			i += 3
		default:
			return false
		}
	}
	return dots == 1 || dots == 2
}
