package openapi

import (
	"fmt"
	"regexp"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
)

// versionDate finds a date at the start of a description's info.version:
// Stripe versions its API by date ("2026-08-26.dahlia").
var versionDate = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:$|[^0-9])`)

// recordedAt is the instant an imported twin is as of, twin.toml's
// recorded_at, from which it serves X-Wraith-Recorded-At and
// X-Wraith-Twin-Age: an import knows only what the description said on
// that day. In order: the date the overlay's [source] pins (the version
// of the package the description ships in), the date info.version starts
// with, the description file's modification time (Options.Modified). It
// returns the zero time when none is known (a twin of unknown age, as
// before), and what the date came from, for the report.
func recordedAt(pinned string, info *openapi3.Info, modified time.Time) (time.Time, string, error) {
	if pinned != "" {
		t, err := parseDate(pinned)
		if err != nil {
			return time.Time{}, "", fmt.Errorf("overlay: [source] date %q: want a date (2026-08-26) or an RFC 3339 time", pinned)
		}
		return t, "the overlay's [source] date", nil
	}
	if info != nil {
		if m := versionDate.FindStringSubmatch(info.Version); m != nil {
			if t, err := parseDate(m[1]); err == nil {
				return t, "the description's info.version", nil
			}
		}
	}
	if !modified.IsZero() {
		return modified.UTC().Truncate(time.Second), "the description file's modification time", nil
	}
	return time.Time{}, "", nil
}

func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	return t.UTC(), err
}

// stamp sets m's recorded_at and reports where it came from.
func stamp(m *format.Manifest, rep *Report, pinned string, info *openapi3.Info, modified time.Time) error {
	t, from, err := recordedAt(pinned, info, modified)
	if err != nil || t.IsZero() {
		if err == nil {
			rep.AddUnresolved("recorded_at", "the description pins no date and its file's modification time is unknown: the twin's age is unknown (X-Wraith-Twin-Age 0)", "low")
		}
		return err
	}
	m.RecordedAt = t
	rep.AddInferred("twin", "recorded_at", t.Format(time.RFC3339), from, 1)
	return nil
}
