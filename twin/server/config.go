package server

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/internal/size"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/session"
)

// Config is everything a served twin is configured with. What only the
// process around it uses (--ready-json, --ready-fd, --log-format,
// --log-level) is the serve entry point's, not the server's.
type Config struct {
	Twin             string
	Host             string
	Port             int
	UnknownEntity    string
	Validation       string
	Fixture          string
	Seed             int64
	Clock            string
	ClockEpoch       int64
	ClockEpochSet    bool
	ClockStep        time.Duration
	ClockStepSet     bool
	Debug            bool
	FaultProfile     string
	RateLimit        string
	ControlTokenEnv  string
	Digest           string
	NoControlHeaders bool
	// RequireProvisioned refuses requests to sessions never provisioned.
	RequireProvisioned bool
	PIIVerbatim        []string
	MaxSessions        int
	MaxEntities        int
	JournalLimit       int
	JournalMemory      int64
	MaxBody            int64
	MaxMemory          int64
	Grace              time.Duration
	// StateDir keeps every session on disk there (docs/durable.md); \"\"
	// keeps them in memory only.
	StateDir string
	// StateCheckpoint is the journal size past which the state folder is
	// checkpointed (--state-checkpoint); 0 is durable's default.
	StateCheckpoint int64
	// PortSet records whether --port was given: --compat stripe-mock binds
	// stripe-mock's own ports when it was not.
	PortSet bool
	// Compat is a serve mode that answers as another mock server does
	// (docs/compat.md); "" for none.
	Compat string
	// WebhookAllow names hosts webhooks are posted to beside loopback
	// addresses (docs/webhooks.md).
	WebhookAllow []string
}

// MinJournalMemory is the smallest journal budget: below it a sweep,
// which visits every session, would come every few requests.
const MinJournalMemory = 1 << 20

// journalBudget is what the store's journals, coverage misses and
// idempotency caches may hold together: --journal-memory, and at most a
// quarter of --max-memory when that is set, so that what clients grow by
// reading never brings the heap to the limit at which writes are refused.
func (c *Config) journalBudget() int64 {
	b := c.JournalMemory
	if c.MaxMemory > 0 {
		b = min(b, max(c.MaxMemory/4, MinJournalMemory))
	}
	return b
}

// UsageError is a configuration mistake: the command exits 2.
type UsageError struct{ Err error }

func (u *UsageError) Error() string { return u.Err.Error() }
func (u *UsageError) Unwrap() error { return u.Err }

func usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// epochFlag records whether --clock-epoch was given.
type epochFlag struct{ c *Config }

func (f epochFlag) String() string {
	if f.c == nil {
		return ""
	}
	return strconv.FormatInt(f.c.ClockEpoch, 10)
}

func (f epochFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > session.MaxEpoch {
		return fmt.Errorf("want whole seconds since 1970, up to %d (the end of 2199), got %q", session.MaxEpoch, s)
	}
	f.c.ClockEpoch, f.c.ClockEpochSet = n, true
	return nil
}

// portFlag records whether --port was given.
type portFlag struct{ c *Config }

func (f portFlag) String() string {
	if f.c == nil {
		return "0"
	}
	return strconv.Itoa(f.c.Port)
}

func (f portFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a port number, 0 to 65535, got %q", s)
	}
	f.c.Port, f.c.PortSet = n, true
	return nil
}

// stepFlag records whether --clock-step was given.
type stepFlag struct{ c *Config }

func (f stepFlag) String() string {
	if f.c == nil {
		return ""
	}
	return f.c.ClockStep.String()
}

func (f stepFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 1s or 250ms, got %q", s)
	}
	f.c.ClockStep, f.c.ClockStepSet = d, true
	return nil
}

// sizeFlag reads a number of bytes in package size's syntax: "200MiB",
// "2GiB", "512MB" or plain bytes.
type sizeFlag struct{ n *int64 }

func (f sizeFlag) String() string {
	if f.n == nil {
		return ""
	}
	return size.Format(*f.n)
}

func (f sizeFlag) Set(s string) error {
	n, err := size.Parse(s)
	if err != nil {
		return fmt.Errorf("want %s; got %q", size.Syntax, s)
	}
	*f.n = n
	return nil
}

// fieldsFlag collects --pii-verbatim FIELD,... (repeatable).
type fieldsFlag struct{ c *Config }

func (f fieldsFlag) String() string {
	if f.c == nil {
		return ""
	}
	return strings.Join(f.c.PIIVerbatim, ",")
}

func (f fieldsFlag) Set(s string) error {
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, " \t\"=") {
			return fmt.Errorf("want field names separated by commas, such as email,name; got %q", s)
		}
		f.c.PIIVerbatim = append(f.c.PIIVerbatim, name)
	}
	return nil
}

// hostsFlag collects --webhook-allow HOST (repeatable, or comma-separated).
type hostsFlag struct{ hosts *[]string }

func (f hostsFlag) String() string {
	if f.hosts == nil {
		return ""
	}
	return strings.Join(*f.hosts, ",")
}

func (f hostsFlag) Set(s string) error {
	for _, h := range strings.Split(s, ",") {
		h = strings.TrimSpace(h)
		_, ipErr := netip.ParseAddr(h)
		if h == "" || strings.ContainsAny(h, " \t/@?#") || (strings.Contains(h, ":") && ipErr != nil) {
			return fmt.Errorf("want host names or addresses without scheme, port or path, such as hooks.internal; got %q", s)
		}
		*f.hosts = append(*f.hosts, h)
	}
	return nil
}

// Flags registers the server's flags on fs and returns the config they
// fill. The twin name is set by the caller from the positional argument.
func Flags(fs *flag.FlagSet) *Config {
	c := &Config{}
	fs.StringVar(&c.Host, "host", "127.0.0.1", "`ADDRESS` to bind; non-loopback addresses need --control-token-env")
	fs.Var(portFlag{c}, "port", "`PORT` to bind; 0 picks a free port (read it from the ready JSON)")
	fs.StringVar(&c.Compat, "compat", "", "answer as the mock server `NAME` does, so its users' test suites run unchanged: stripe-mock (HTTPS with HTTP/2 beside HTTP, its ports 12111 and 12112 unless --port; see docs/compat.md)")
	fs.StringVar(&c.UnknownEntity, "unknown-entity", engine.Synthesize, "`MODE` for reads of never-seen ids: synthesize (template-shaped 200) or not_found (provider 404 or 501 miss)")
	fs.StringVar(&c.Validation, "validate", engine.Strict, "`MODE` of request validation against the twin's request schemas: strict (refuse as the provider does), warn (serve, and say what is wrong in X-Wraith-Invalid) or off")
	fs.StringVar(&c.Fixture, "fixture", "", "fixture set every new session starts with: `SET` or TWIN:SET")
	fs.Int64Var(&c.Seed, "seed", 0, "seed of each session's id generator: a whole number `N`, 0 or more")
	fs.StringVar(&c.Clock, "clock", session.ClockReal, "session clock `MODE`: real, deterministic or fixed")
	fs.Var(epochFlag{c}, "clock-epoch", "base epoch, in unix `SECS`, of deterministic and fixed clocks; default: the twin's recorded_at")
	c.ClockStep = time.Second
	fs.Var(stepFlag{c}, "clock-step", "how far (a `DURATION` such as 1s or 250ms) a deterministic clock advances per business request")
	fs.BoolVar(&c.Debug, "debug", false, "enable the session state endpoint and debug logs")
	fs.StringVar(&c.FaultProfile, "fault-profile", "", "fault profile `NAME` of every new session: none, flaky, slow or one of the twin's own (shell completion of --fault-profile lists them)")
	fs.StringVar(&c.RateLimit, "rate-limit", "", "per-session rate limit, `RATE` of N/s or N/m; past it answers 429 with Retry-After")
	fs.StringVar(&c.ControlTokenEnv, "control-token-env", "", "name of the environment variable `VAR` holding the control-plane bearer token (required off loopback; the token itself never goes on the command line)")
	fs.StringVar(&c.Digest, "digest", "", "refuse to serve unless the twin's digest is `DIGEST` (sha256:...)")
	fs.Var(fieldsFlag{c}, "pii-verbatim", "serve the values of these PII-shaped `FIELDS` (comma-separated, e.g. email,name) as they are, untokenized, in every session")
	fs.BoolVar(&c.NoControlHeaders, "no-control-headers", false, "do not add X-Wraith-* headers to application responses")
	fs.BoolVar(&c.RequireProvisioned, "require-provisioned", false, "answer a request to a session that was never provisioned (POST /__wraith/session/NAME) with 409 session-not-provisioned instead of starting it as a fresh world")
	fs.IntVar(&c.MaxSessions, "max-sessions", 10000, "most sessions alive at once (`N`); past it new sessions get 503 session-limit")
	fs.IntVar(&c.JournalLimit, "journal-limit", session.DefaultJournalLimit, "journal entries (`N`) kept per session; past it the oldest are dropped and counted")
	fs.IntVar(&c.MaxEntities, "max-entities", engine.DefaultMaxEntities, "most entities (`N`) one session may create, change or delete; past it writes get 507 session-entity-limit")
	c.JournalMemory = session.DefaultJournalMemory
	fs.Var(sizeFlag{&c.JournalMemory}, "journal-memory", "bytes (a `SIZE` such as 256MiB) all sessions' journals, coverage misses and idempotency caches may hold together; past it the oldest journal entries of any session are dropped and counted (at most a quarter of --max-memory when that is set)")
	c.MaxBody = 10 << 20
	fs.Var(sizeFlag{&c.MaxBody}, "max-body", "largest request body (a `SIZE` such as 10MiB, or bytes), and largest entity; larger bodies get 413 body-too-large")
	fs.Var(sizeFlag{&c.MaxMemory}, "max-memory", "soft limit on the live heap, a `SIZE` such as 512MiB or 2GiB (or bytes); past it writes get 507 memory-limit and reads keep working (0: none)")
	fs.StringVar(&c.StateDir, "state-dir", "", "keep every session in the folder `DIR`: each write is on disk before it is answered, and a restarted twin recovers every session (see docs/durable.md)")
	fs.Var(sizeFlag{&c.StateCheckpoint}, "state-checkpoint", "with --state-dir: checkpoint the sessions and start the journal over once it passes this `SIZE` (such as 64MiB, the default, or bytes); a smaller one keeps the folder smaller and rewrites sessions more often")
	fs.Var(hostsFlag{&c.WebhookAllow}, "webhook-allow", "post webhooks to `HOST` too, beside loopback addresses (repeatable; see docs/webhooks.md)")
	fs.DurationVar(&c.Grace, "shutdown-grace", 5*time.Second, "how long (a `DURATION`) in-flight requests may finish after SIGINT or SIGTERM")
	return c
}

// Validate checks flag values, naming the flag in every error.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Port < 0 || c.Port > 65535 {
		bad("--port %d: want 0 (any free port) to 65535", c.Port)
	}
	if c.Compat != "" && c.Compat != CompatStripeMock {
		bad("--compat %q: want %s, or leave it out", c.Compat, CompatStripeMock)
	}
	if c.UnknownEntity != engine.Synthesize && c.UnknownEntity != engine.NotFound {
		bad("--unknown-entity %q: want synthesize or not_found", c.UnknownEntity)
	}
	if !slices.Contains(engine.ValidModes, c.Validation) {
		bad("--validate %q: want strict, warn or off", c.Validation)
	}
	if c.Seed < 0 {
		bad("--seed %d: want a whole number, 0 or more", c.Seed)
	}
	if c.StateCheckpoint != 0 && c.StateDir == "" {
		bad("--state-checkpoint %d: it bounds the journal of a state folder, and none was given; add --state-dir DIR, or drop --state-checkpoint", c.StateCheckpoint)
	}
	if c.StateCheckpoint < 0 {
		bad("--state-checkpoint %d: want a size such as 64MiB, or bytes", c.StateCheckpoint)
	}
	if !session.ValidClockMode(c.Clock) {
		bad("--clock %q: want real, deterministic or fixed", c.Clock)
	}
	if c.Clock == session.ClockReal && c.ClockEpochSet {
		bad("--clock-epoch %d: the real clock reads the wall clock and has no base epoch; drop --clock-epoch, or add --clock deterministic or --clock fixed", c.ClockEpoch)
	}
	if c.ClockStepSet && c.Clock != session.ClockDeterministic && session.ValidClockMode(c.Clock) {
		bad("--clock-step %s: only a deterministic clock steps, and this one is %s; drop --clock-step, or add --clock deterministic", c.ClockStep, c.Clock)
	}
	if c.ClockStep <= 0 || c.ClockStep > 24*time.Hour {
		bad("--clock-step %s: want a positive duration up to 24h, such as 1s or 250ms", c.ClockStep)
	}
	if _, err := rate.Parse(c.RateLimit); err != nil {
		bad("--rate-limit %q: want %s", c.RateLimit, rate.Syntax)
	}
	if c.MaxSessions < 1 {
		bad("--max-sessions %d: want 1 or more", c.MaxSessions)
	}
	if c.MaxEntities < 1 {
		bad("--max-entities %d: want 1 or more", c.MaxEntities)
	}
	if c.JournalLimit < 1 {
		bad("--journal-limit %d: want 1 or more", c.JournalLimit)
	}
	if c.ControlTokenEnv != "" && !hostguard.ValidEnvName(c.ControlTokenEnv) {
		bad("--control-token-env: want the name of an environment variable (letters, digits, _), not the token itself")
	}
	if c.MaxBody < 1 {
		bad("--max-body %d: want 1 or more bytes", c.MaxBody)
	}
	if c.MaxMemory < 0 {
		bad("--max-memory %d: want 0 (no limit) or a size, such as 512MiB", c.MaxMemory)
	}
	if c.JournalMemory < MinJournalMemory {
		bad("--journal-memory %d: want %s or more, such as 256MiB", c.JournalMemory, size.Format(MinJournalMemory))
	}
	if c.Digest != "" && !strings.HasPrefix(c.Digest, "sha256:") {
		bad("--digest %q: want sha256:<hex>, as wraith inspect prints", c.Digest)
	}
	if len(errs) > 0 {
		return &UsageError{errors.Join(errs...)}
	}
	return nil
}
