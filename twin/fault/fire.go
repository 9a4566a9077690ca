package fault

import (
	"math"
	"time"

	"github.com/wraithdev/wraith/twin/format"
)

// Decision is what a session's fault profile makes of one request.
type Decision struct {
	// Rule is the rule that fired; nil when none did, and the request is
	// served as usual.
	Rule *Rule
	// Late reports whether the rule adds latency, Delay: the answer (or
	// the reset) comes that much later, on the session's clock or the wall
	// clock.
	Late  bool
	Delay time.Duration
}

// Decide counts a request against every rule of p it matches, in counts
// (the session's, p.Len() of them), and returns the first rule that
// fires, with its latency drawn for this request from seed. route is the
// template of the route the request matched.
func (p *Profile) Decide(seed uint64, counts []Count, method, route string) Decision {
	var d Decision
	var firedK uint64
	for i, r := range p.rules {
		if r.method != "" && r.method != method || r.route != "" && r.route != route {
			continue
		}
		c := &counts[i]
		c.Matched++
		if d.Rule == nil && r.fires(seed, c.Matched, c.Fired) {
			c.Fired++
			d.Rule, firedK = r, c.Matched
		}
	}
	if d.Rule != nil && d.Rule.slow {
		d.Late, d.Delay = true, drawLatency(d.Rule.latency, seed, d.Rule.key, firedK)
	}
	return d
}

// fires is the firing decision for the k-th matching request, given how
// often the rule fired before.
func (r *Rule) fires(seed, k, fired uint64) bool {
	if r.maxFires > 0 && fired >= r.maxFires {
		return false
	}
	switch {
	case r.prob:
		return r.certain || draw(seed, r.key, k, 0) < r.threshold
	case r.nth != nil:
		return r.nth[k]
	case r.every > 0:
		return k%r.every == 0
	case r.after >= 0:
		return k > uint64(r.after)
	}
	return true
}

// draw is a counter-based generator: the lane-th 64-bit value for the
// k-th match of the rule with key under seed, by splitmix64. Every value
// is computed from its inputs alone.
func draw(seed, key, k, lane uint64) uint64 {
	return splitmix64(splitmix64(splitmix64(seed^key)^k) + lane)
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit maps a 64-bit value to (0, 1).
func unit(v uint64) float64 { return (float64(v>>11) + 0.5) / (1 << 53) }

// drawLatency returns the latency for the k-th match: the fixed one, or a
// log-normal sample (Box–Muller over two counter-based draws), capped.
func drawLatency(l format.Latency, seed, key, k uint64) time.Duration {
	if l.Fixed > 0 {
		return l.Fixed
	}
	z := math.Sqrt(-2*math.Log(unit(draw(seed, key, k, 1)))) * math.Cos(2*math.Pi*unit(draw(seed, key, k, 2)))
	d := time.Duration(float64(l.Median) * math.Exp(l.Sigma*z))
	return min(max(d, 0), l.Max)
}
