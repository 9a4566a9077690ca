package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// rawSettings receives one table. Every field is `any` so that a value of
// the wrong type does not stop the decoder: the parser checks types itself
// and so reports all of them, with lines, in one pass. Unknown keys are left
// to go-toml's strict mode, which reports all of them too.
type rawSettings struct {
	Name            any `toml:"name"`
	Twin            any `toml:"twin"`
	Host            any `toml:"host"`
	Port            any `toml:"port"`
	Fixture         any `toml:"fixture"`
	Seed            any `toml:"seed"`
	Clock           any `toml:"clock"`
	ClockEpoch      any `toml:"clock_epoch"`
	ControlTokenEnv any `toml:"control_token_env"`
	UnknownEntity   any `toml:"unknown_entity"`
	Validate        any `toml:"validate"`
	FaultProfile    any `toml:"fault_profile"`
	RateLimit       any `toml:"rate_limit"`
	Debug           any `toml:"debug"`
	RequireProv     any `toml:"require_provisioned"`
	PIIVerbatim     any `toml:"pii_verbatim"`
	WebhookAllow    any `toml:"webhook_allow"`
	JournalLimit    any `toml:"journal_limit"`
	MaxSessions     any `toml:"max_sessions"`
	MaxEntities     any `toml:"max_entities"`
	MaxBody         any `toml:"max_body"`
	MaxMemory       any `toml:"max_memory"`
	StateDir        any `toml:"state_dir"`
}

type rawFile struct {
	Project  any           `toml:"project"`
	Defaults *rawSettings  `toml:"defaults"`
	Twins    []rawSettings `toml:"twins"`
	Proxy    *rawProxy     `toml:"proxy"`
}

// knownKeys is the list shown with an unknown key.
var knownKeys = "name, twin, host, port, fixture, seed, clock, clock_epoch, control_token_env, unknown_entity, validate, fault_profile, rate_limit, debug, require_provisioned, pii_verbatim, webhook_allow, journal_limit, max_sessions, max_entities, max_body, max_memory, state_dir"

// settings is one table after type checks; nil means absent.
type settings struct {
	name, twin, host, fixture, clock, controlTokenEnv, unknownEntity, validate, faultProfile, rateLimit *string
	stateDir                                                                                            *string // a twin's own only: two twins cannot share a folder
	port                                                                                                *int
	seed                                                                                                *uint64
	clockEpoch                                                                                          *int64
	debug, requireProvisioned                                                                           *bool
	piiVerbatim                                                                                         []string
	webhookAllow                                                                                        []string
	// The serve limits, in their flags' units (entries, sessions,
	// entities, bytes).
	journalLimit, maxSessions, maxEntities, maxBody, maxMemory *int64
}

type parser struct {
	file     string
	data     []byte
	pos      positions
	problems []Problem
}

func (p *parser) problem(path, format string, args ...any) {
	p.problems = append(p.problems, Problem{File: p.file, Line: p.pos.line(path), Key: path, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) parse() *Project {
	p.pos = indexPositions(p.data)
	var raw rawFile
	err := toml.NewDecoder(bytes.NewReader(p.data)).DisallowUnknownFields().Decode(&raw)
	var strict *toml.StrictMissingError
	var decode *toml.DecodeError
	switch {
	case errors.As(err, &strict):
		for _, e := range strict.Errors {
			p.unknownKey(e)
		}
	case errors.As(err, &decode):
		line, col := decode.Position()
		key := p.decodeKey(decode.Key(), line)
		p.problems = append(p.problems, Problem{File: p.file, Line: line, Column: col, Key: key, Message: shapeMessage(key, decode.Error())})
		return nil
	case err != nil:
		p.problems = append(p.problems, Problem{File: p.file, Message: err.Error()})
		return nil
	}

	proj := &Project{File: p.file, Dir: filepath.Dir(p.file), Name: filepath.Base(filepath.Dir(p.file))}
	if name := p.str("project", raw.Project, checkProject); name != nil {
		proj.Name = *name
	}
	var defaults settings
	if raw.Defaults != nil {
		defaults = p.settings("defaults", raw.Defaults)
		p.realEpoch("defaults", defaults)
		if defaults.name != nil {
			p.problem("defaults.name", "name cannot be set in [defaults]: each [[twins]] entry names itself")
		}
		if defaults.port != nil {
			p.problem("defaults.port", "port cannot be set in [defaults]: two twins cannot share a port; set it per [[twins]] entry or leave it out for a free port")
		}
		if defaults.stateDir != nil {
			p.problem("defaults.state_dir", "state_dir cannot be set in [defaults]: two twins cannot share a state folder; set it per [[twins]] entry")
		}
	}
	if len(raw.Twins) == 0 {
		p.problems = append(p.problems, Problem{File: p.file, Key: "twins", Message: "no [[twins]] entries: add one [[twins]] table with a name per twin to run"})
		return proj
	}
	for i := range raw.Twins {
		path := fmt.Sprintf("twins[%d]", i)
		own := p.settings(path, &raw.Twins[i])
		p.realEpoch(path, own)
		s := merge(defaults, own)
		t := Twin{Line: p.pos.line(path), Host: DefaultHost}
		if s.name == nil {
			if raw.Twins[i].Name == nil {
				p.problem(path, "name is required: give each [[twins]] entry a unique name, e.g. name = \"billing\"")
			}
		} else {
			t.Name = *s.name
		}
		t.Twin = t.Name
		set(&t.Twin, s.twin)
		set(&t.Host, s.host)
		set(&t.Port, s.port)
		set(&t.Fixture, s.fixture)
		set(&t.Clock, s.clock)
		set(&t.ControlTokenEnv, s.controlTokenEnv)
		set(&t.UnknownEntity, s.unknownEntity)
		set(&t.Validate, s.validate)
		set(&t.FaultProfile, s.faultProfile)
		set(&t.RateLimit, s.rateLimit)
		set(&t.Debug, s.debug)
		set(&t.RequireProvisioned, s.requireProvisioned)
		t.PIIVerbatim = s.piiVerbatim
		t.WebhookAllow = s.webhookAllow
		t.JournalLimit, t.MaxSessions, t.MaxEntities = s.journalLimit, s.maxSessions, s.maxEntities
		t.MaxBody, t.MaxMemory = s.maxBody, s.maxMemory
		t.Seed, t.ClockEpoch = s.seed, s.clockEpoch
		if own.stateDir != nil {
			t.StateDir = *own.stateDir
		}
		proj.Twins = append(proj.Twins, t)
	}
	p.crossChecks(proj.Twins)
	proj.Proxy = p.proxy(raw.Proxy, proj.Twins)
	return proj
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// merge overlays a twin's own settings on the defaults.
func merge(d, t settings) settings {
	pick := func(a, b *string) *string {
		if b != nil {
			return b
		}
		return a
	}
	out := settings{
		name: t.name, port: t.port,
		twin: pick(d.twin, t.twin), host: pick(d.host, t.host), fixture: pick(d.fixture, t.fixture),
		clock: pick(d.clock, t.clock), controlTokenEnv: pick(d.controlTokenEnv, t.controlTokenEnv),
		unknownEntity: pick(d.unknownEntity, t.unknownEntity), validate: pick(d.validate, t.validate), faultProfile: pick(d.faultProfile, t.faultProfile),
		rateLimit: pick(d.rateLimit, t.rateLimit),
		seed:      d.seed, clockEpoch: d.clockEpoch, debug: d.debug,
	}
	if t.seed != nil {
		out.seed = t.seed
	}
	if t.clockEpoch != nil {
		out.clockEpoch = t.clockEpoch
	}
	if t.debug != nil {
		out.debug = t.debug
	}
	out.requireProvisioned = or(t.requireProvisioned, d.requireProvisioned)
	out.piiVerbatim = d.piiVerbatim
	if t.piiVerbatim != nil {
		out.piiVerbatim = t.piiVerbatim
	}
	out.webhookAllow = d.webhookAllow
	if t.webhookAllow != nil {
		out.webhookAllow = t.webhookAllow
	}
	out.journalLimit = or(t.journalLimit, d.journalLimit)
	out.maxSessions = or(t.maxSessions, d.maxSessions)
	out.maxEntities = or(t.maxEntities, d.maxEntities)
	out.maxBody = or(t.maxBody, d.maxBody)
	out.maxMemory = or(t.maxMemory, d.maxMemory)
	return out
}

// or is the twin's own value when it has one, else the default.
func or[T any](own, def *T) *T {
	if own != nil {
		return own
	}
	return def
}

// unknownKey turns one of go-toml's strict-mode errors into a problem whose
// key names the [[twins]] entry it belongs to.
func (p *parser) unknownKey(e toml.DecodeError) {
	line, col := e.Position()
	key := p.decodeKey(e.Key(), line)
	msg := "unknown key"
	switch {
	case strings.HasPrefix(key, "twins[") || strings.HasPrefix(key, "defaults."):
		msg += "; known keys: " + knownKeys
	case strings.HasPrefix(key, "proxy."):
		msg += "; known keys: " + proxyKeys
	default:
		msg += "; the top level holds only project, [defaults], [[twins]] and [proxy]"
	}
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Column: col, Key: key, Message: msg})
}

// shapeMessage rewrites go-toml's message for a table of the wrong kind
// (which names Go types) into one about the manifest.
func shapeMessage(key, msg string) string {
	msg = strings.TrimPrefix(msg, "toml: ")
	rest, ok := strings.CutPrefix(msg, "cannot decode TOML ")
	if !ok {
		return msg
	}
	kind, _, _ := strings.Cut(rest, " ")
	switch key {
	case "twins":
		return fmt.Sprintf("must be [[twins]] tables, not a TOML %s", kind)
	case "defaults":
		return fmt.Sprintf("must be a [defaults] table, not a TOML %s", kind)
	}
	return fmt.Sprintf("has the wrong shape: a TOML %s is not allowed here", kind)
}

// decodeKey renders a go-toml key, adding the [[twins]] index that go-toml
// leaves out.
func (p *parser) decodeKey(k toml.Key, line int) string {
	if len(k) == 0 {
		return ""
	}
	if len(k) == 1 {
		// go-toml names a key of an inline table without its table.
		found := ""
		for path, l := range p.pos {
			if l == line && strings.HasSuffix(path, "]."+k[0]) && (found == "" || path < found) {
				found = path
			}
		}
		if found != "" {
			return found
		}
	}
	if k[0] == "twins" && len(k) > 1 {
		if i := p.pos.entryAt("twins", line); i >= 0 {
			return fmt.Sprintf("twins[%d].%s", i, strings.Join(k[1:], "."))
		}
	}
	return strings.Join(k, ".")
}

func (p *parser) settings(prefix string, r *rawSettings) settings {
	k := func(name string) string { return prefix + "." + name }
	return settings{
		name:               p.str(k("name"), r.Name, checkName),
		twin:               p.str(k("twin"), r.Twin, checkTwin),
		host:               p.str(k("host"), r.Host, checkHost),
		port:               p.port(k("port"), r.Port),
		fixture:            p.str(k("fixture"), r.Fixture, checkFixture),
		seed:               p.seed(k("seed"), r.Seed),
		clock:              p.str(k("clock"), r.Clock, oneOf("real", "deterministic", "fixed")),
		clockEpoch:         p.epoch(k("clock_epoch"), r.ClockEpoch),
		controlTokenEnv:    p.str(k("control_token_env"), r.ControlTokenEnv, checkEnvVar),
		unknownEntity:      p.str(k("unknown_entity"), r.UnknownEntity, oneOf("synthesize", "not_found")),
		validate:           p.str(k("validate"), r.Validate, oneOf("strict", "warn", "off")),
		faultProfile:       p.str(k("fault_profile"), r.FaultProfile, checkFaultProfile),
		rateLimit:          p.str(k("rate_limit"), r.RateLimit, checkRateLimit),
		debug:              p.boolean(k("debug"), r.Debug),
		requireProvisioned: p.boolean(k("require_provisioned"), r.RequireProv),
		piiVerbatim:        p.fields(k("pii_verbatim"), r.PIIVerbatim),
		webhookAllow:       p.hosts(k("webhook_allow"), r.WebhookAllow),
		journalLimit:       p.count(k("journal_limit"), r.JournalLimit, 1),
		maxSessions:        p.count(k("max_sessions"), r.MaxSessions, 1),
		maxEntities:        p.count(k("max_entities"), r.MaxEntities, 1),
		maxBody:            p.size(k("max_body"), r.MaxBody, 1),
		maxMemory:          p.size(k("max_memory"), r.MaxMemory, 0),
		stateDir:           p.str(k("state_dir"), r.StateDir, checkStateDir),
	}
}

// realEpoch refuses a table that sets both clock = "real" and clock_epoch.
// A twin whose real clock meets an epoch from [defaults] is fine: the
// epoch is meant for the other twins, and Flags leaves it out.
func (p *parser) realEpoch(prefix string, s settings) {
	if s.clock != nil && *s.clock == "real" && s.clockEpoch != nil {
		p.problem(prefix+".clock_epoch", "clock_epoch means nothing to the real clock, which reads the wall clock: drop clock_epoch, or set clock = \"deterministic\" or \"fixed\"")
	}
}

// hosts reads a list of host names or addresses, such as
// webhook_allow = ["hooks.internal"].
func (p *parser) hosts(path string, v any) []string {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		p.problem(path, "must be a list of hosts, such as [\"hooks.internal\"], not %s", describe(v))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		_, ipErr := netip.ParseAddr(s)
		if !ok || s == "" || strings.ContainsAny(s, ", \t/@?#") || (strings.Contains(s, ":") && ipErr != nil) {
			p.problem(path, "entry %d must be a host name or address without scheme, port or path, such as \"hooks.internal\", not %s", i, describe(e))
			return nil
		}
		out = append(out, s)
	}
	return out
}

// fields reads a list of field names, such as pii_verbatim = ["email"].
func (p *parser) fields(path string, v any) []string {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		p.problem(path, "must be a list of field names, such as [\"email\", \"name\"], not %s", describe(v))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok || s == "" || strings.ContainsAny(s, ", \t\"=") {
			p.problem(path, "entry %d must be a field name such as \"email\", not %s", i, describe(e))
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (p *parser) str(path string, v any, check func(string) string) *string {
	if v == nil {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		p.problem(path, "must be a string, not %s", describe(v))
		return nil
	}
	if msg := check(s); msg != "" {
		p.problem(path, "%s", msg)
		return nil
	}
	return &s
}

func (p *parser) integer(path string, v any) (int64, bool) {
	n, ok := v.(int64)
	if !ok {
		p.problem(path, "must be an integer, not %s", describe(v))
	}
	return n, ok
}

func (p *parser) port(path string, v any) *int {
	if v == nil {
		return nil
	}
	n, ok := p.integer(path, v)
	if !ok {
		return nil
	}
	if n < 0 || n > 65535 {
		p.problem(path, "port %d is out of range: use 1-65535, or 0 (or leave it out) for a free port", n)
		return nil
	}
	port := int(n)
	return &port
}

func (p *parser) seed(path string, v any) *uint64 {
	if v == nil {
		return nil
	}
	n, ok := p.integer(path, v)
	if !ok {
		return nil
	}
	if n < 0 {
		p.problem(path, "seed %d is negative: use an integer >= 0", n)
		return nil
	}
	u := uint64(n)
	return &u
}

// epoch accepts Unix seconds or an offset date-time (clock_epoch = 2023-11-14T22:13:20Z).
func (p *parser) epoch(path string, v any) *int64 {
	var n int64
	switch v := v.(type) {
	case nil:
		return nil
	case int64:
		n = v
	case time.Time:
		n = v.Unix()
	case toml.LocalDateTime, toml.LocalDate, toml.LocalTime:
		p.problem(path, "a date-time needs a time zone offset (e.g. 2023-11-14T22:13:20Z), or use Unix seconds")
		return nil
	default:
		p.problem(path, "must be Unix seconds (an integer) or an offset date-time, not %s", describe(v))
		return nil
	}
	if n < 0 {
		p.problem(path, "clock_epoch %d is before 1970: use Unix seconds >= 0", n)
		return nil
	}
	return &n
}

func (p *parser) boolean(path string, v any) *bool {
	if v == nil {
		return nil
	}
	b, ok := v.(bool)
	if !ok {
		p.problem(path, "must be true or false, not %s", describe(v))
		return nil
	}
	return &b
}

// crossChecks finds problems between entries: duplicate names, names that
// collide as environment variables, ports two twins would both bind, and
// non-loopback binds without a control token.
func (p *parser) crossChecks(twins []Twin) {
	byName := map[string]int{}
	byEnv := map[string]int{}
	for i, t := range twins {
		if t.Name == "" {
			continue
		}
		path := fmt.Sprintf("twins[%d].name", i)
		if j, ok := byName[t.Name]; ok {
			p.problem(path, "duplicate name %q (also twins[%d] on line %d): names must be unique", t.Name, j, twins[j].Line)
			continue
		}
		byName[t.Name] = i
		env := EnvPrefix(t.Name)
		if j, ok := byEnv[env]; ok {
			p.problem(path, "name %q and %q (twins[%d]) both become %s_* in wraith env: rename one", t.Name, twins[j].Name, j, env)
			continue
		}
		byEnv[env] = i
	}
	byState := map[string]int{}
	for i, t := range twins {
		if t.StateDir == "" {
			continue
		}
		dir := filepath.Clean(t.StateDir)
		if j, ok := byState[dir]; ok {
			p.problem(fmt.Sprintf("twins[%d].state_dir", i), "%q is also the state folder of %q (twins[%d]): give each twin a folder of its own", t.StateDir, twins[j].Name, j)
			continue
		}
		byState[dir] = i
	}
	for i, t := range twins {
		if t.Port != 0 {
			for j := range i {
				o := twins[j]
				if o.Port == t.Port && hostsOverlap(o.Host, t.Host) {
					p.problem(fmt.Sprintf("twins[%d].port", i), "port %d is already taken by %q (twins[%d]): pick another port or use 0 for a free one", t.Port, o.Name, j)
					break
				}
			}
		}
		if t.ControlTokenEnv == "" && !isLoopback(t.Host) && isIPLiteral(t.Host) {
			p.problem(fmt.Sprintf("twins[%d].host", i), "host %s is not a loopback address, so its control plane needs a token: set control_token_env to the name of a variable holding one", t.Host)
		}
	}
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("a string (%q)", v)
	case int64:
		return fmt.Sprintf("an integer (%d)", v)
	case float64:
		return fmt.Sprintf("a float (%v)", v)
	case bool:
		return fmt.Sprintf("a boolean (%v)", v)
	case map[string]any:
		return "a table"
	case []any:
		return "an array"
	case time.Time, toml.LocalDateTime, toml.LocalDate, toml.LocalTime:
		return "a date-time"
	default:
		return fmt.Sprintf("a %T", v)
	}
}

func oneOf(allowed ...string) func(string) string {
	return func(s string) string {
		if slices.Contains(allowed, s) {
			return ""
		}
		return fmt.Sprintf("%q is not one of %s", s, strings.Join(allowed, ", "))
	}
}
