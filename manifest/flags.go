package manifest

import (
	"strconv"
	"strings"
)

// Flags returns the wraith-twin flags that carry t's settings, in a fixed
// order, each as one "--flag=value" word so that no value can be taken for
// a flag. Settings the manifest leaves out are left to the child's defaults.
//
// Host and port are not included: the supervisor owns them, because it pins
// the port a child got on its first start when it restarts that child. The
// control token itself is never a flag: only the name of the variable that
// holds it travels in argv, and the value travels in the environment.
func (t Twin) Flags() []string {
	var f []string
	add := func(name, v string) {
		if v != "" {
			f = append(f, "--"+name+"="+v)
		}
	}
	add("fixture", t.Fixture)
	if t.Seed != nil {
		add("seed", strconv.FormatUint(*t.Seed, 10))
	}
	add("clock", t.Clock)
	if t.ClockEpoch != nil && t.Clock != "real" {
		add("clock-epoch", strconv.FormatInt(*t.ClockEpoch, 10))
	}
	add("control-token-env", t.ControlTokenEnv)
	add("unknown-entity", t.UnknownEntity)
	add("validate", t.Validate)
	add("fault-profile", t.FaultProfile)
	add("rate-limit", t.RateLimit)
	add("pii-verbatim", strings.Join(t.PIIVerbatim, ","))
	add("webhook-allow", strings.Join(t.WebhookAllow, ","))
	add("state-dir", t.StateDir)
	for _, l := range []struct {
		flag string
		v    *int64
	}{
		{"journal-limit", t.JournalLimit}, {"max-sessions", t.MaxSessions}, {"max-entities", t.MaxEntities},
		{"max-body", t.MaxBody}, {"max-memory", t.MaxMemory},
	} {
		if l.v != nil {
			add(l.flag, strconv.FormatInt(*l.v, 10))
		}
	}
	if t.Debug {
		f = append(f, "--debug")
	}
	if t.RequireProvisioned {
		f = append(f, "--require-provisioned")
	}
	return f
}
