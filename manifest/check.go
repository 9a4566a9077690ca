package manifest

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"unicode"

	"github.com/wraithdev/wraith/internal/rate"
)

var (
	nameRE     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,62}$`)
	fixtureRE  = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]{0,63}:)?[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	profileRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	envVarRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
	hostnameRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)
)

func checkName(s string) string {
	if !nameRE.MatchString(s) {
		return fmt.Sprintf("%q is not a valid name: start with a letter, then letters, digits, '-' or '_' (at most 63)", s)
	}
	return ""
}

func checkProject(s string) string {
	if s == "" || len(s) > 128 || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return fmt.Sprintf("%q is not a valid project name: use 1-128 printable characters", s)
	}
	return ""
}

func checkStateDir(s string) string {
	if strings.TrimSpace(s) == "" || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return fmt.Sprintf("%q is not a folder: give the folder this twin keeps its sessions in, e.g. \".wraith/state/billing\"", s)
	}
	if strings.HasPrefix(s, "-") {
		return fmt.Sprintf("%q starts with '-': write a path as ./%s", s, s)
	}
	return ""
}

func checkTwin(s string) string {
	if strings.TrimSpace(s) == "" || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return fmt.Sprintf("%q is not a twin: give a twin name (e.g. \"checkout\"), a twin folder or a .twin file", s)
	}
	if strings.HasPrefix(s, "-") {
		// It would reach wraith-twin as a flag.
		return fmt.Sprintf("%q starts with '-': write a path as ./%s", s, s)
	}
	return ""
}

func checkHost(s string) string {
	if s == "localhost" || net.ParseIP(s) != nil || hostnameRE.MatchString(s) {
		return ""
	}
	return fmt.Sprintf("%q is not an IP address or host name (use 127.0.0.1 for this machine only)", s)
}

func checkFixture(s string) string {
	if !fixtureRE.MatchString(s) {
		return fmt.Sprintf("%q is not a fixture name: use SET or TWIN:SET (letters, digits, '.', '-', '_'), e.g. \"checkout:happy-path\"", s)
	}
	return ""
}

func checkFaultProfile(s string) string {
	if !profileRE.MatchString(s) {
		return fmt.Sprintf("%q is not a fault profile name: use letters, digits, '.', '-', '_'", s)
	}
	return ""
}

func checkEnvVar(s string) string {
	if !envVarRE.MatchString(s) {
		return fmt.Sprintf("%q is not an environment variable name: use letters, digits and '_', not starting with a digit", s)
	}
	return ""
}

func checkRateLimit(s string) string {
	if _, err := rate.Parse(s); err != nil || s == "" {
		return fmt.Sprintf("%q is not a rate: use N/s or N/m with N >= 1, e.g. \"10/s\"", s)
	}
	return ""
}

func isIPLiteral(host string) bool { return net.ParseIP(host) != nil }

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isWildcard(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}

// hostsOverlap reports whether two binds on the same port would collide:
// the same host, a wildcard on either side, or "localhost" (which may bind
// both 127.0.0.1 and ::1) against any loopback address.
func hostsOverlap(a, b string) bool {
	if a == b || isWildcard(a) || isWildcard(b) {
		return true
	}
	return (a == "localhost" && isLoopback(b)) || (b == "localhost" && isLoopback(a))
}
