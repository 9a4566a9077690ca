package wraithtest

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/go-hclog"
)

// Option is a setting of a served twin (Start, New) or of a provisioned
// session (Provision). Seed, Fixture and Clock apply to both: served, they
// are every new session's defaults. The others configure serving only.
type Option func(*options)

type options struct {
	seed    *uint64
	fixture *string
	clock   *clock
	flags   []string
	dir     string
	logger  hclog.Logger
	// serveOnly names the first serve-only option given, for Provision's
	// error; err is a mistake found while applying an option.
	serveOnly string
	err       error
}

type clock struct {
	mode  string
	epoch int64
}

// Seed seeds the id generator (serve's --seed).
func Seed(n uint64) Option { return func(o *options) { o.seed = &n } }

// Fixture is the fixture set a session starts with: SET or TWIN:SET
// (serve's --fixture).
func Fixture(name string) Option { return func(o *options) { o.fixture = &name } }

// Clock sets the session clock: mode "deterministic" (starts at
// baseEpoch, unix seconds, and advances one step per business request),
// "fixed" (stays at baseEpoch) or "real" (the wall clock; baseEpoch must
// be 0). Serve's --clock and --clock-epoch.
func Clock(mode string, baseEpoch int64) Option {
	return func(o *options) {
		if mode == "real" && baseEpoch != 0 {
			o.fail(fmt.Errorf("Clock(%q, %d): a real clock has no base epoch; pass 0, or use \"deterministic\" or \"fixed\"", mode, baseEpoch))
			return
		}
		o.clock = &clock{mode: mode, epoch: baseEpoch}
	}
}

// Flags passes serve flags as `wraith serve` takes them, for settings
// without an Option of their own: Flags("--unknown-entity", "not_found",
// "--rate-limit", "10/s", "--debug"). --host and --port are ignored: a
// test server listens on 127.0.0.1 and a free port. Serving only.
func Flags(args ...string) Option {
	return func(o *options) {
		o.flags = append(o.flags, args...)
		o.only("Flags")
	}
}

// Dir is the folder that relative twin names resolve in (./twins/NAME,
// ./NAME.twin); by default the test's working directory, its package
// folder. Serving only.
func Dir(path string) Option {
	return func(o *options) { o.dir = path; o.only("Dir") }
}

// Logger receives the server's logs; by default they are discarded.
// Serving only.
func Logger(l hclog.Logger) Option {
	return func(o *options) { o.logger = l; o.only("Logger") }
}

func (o *options) only(name string) {
	if o.serveOnly == "" {
		o.serveOnly = name
	}
}

func (o *options) fail(err error) {
	if o.err == nil {
		o.err = err
	}
}

// serveFlags renders the options as serve flags; Flags come last, so they
// win.
func (o *options) serveFlags() []string {
	var args []string
	if o.seed != nil {
		args = append(args, "--seed", strconv.FormatUint(*o.seed, 10))
	}
	if o.fixture != nil {
		args = append(args, "--fixture", *o.fixture)
	}
	if c := o.clock; c != nil {
		args = append(args, "--clock", c.mode)
		if c.mode != "real" {
			args = append(args, "--clock-epoch", strconv.FormatInt(c.epoch, 10))
		}
	}
	return append(args, o.flags...)
}
