package session

import (
	"time"

	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/twin/fault"
)

// faultState is a session's fault and rate-limit state: which profile
// and limit it runs under, and each fault rule's counters. It belongs to
// the session like its ids, so one session's faults never move another's,
// and a reset starts the counters over. Package fault decides what the
// counters mean; the session only keeps them.
type faultState struct {
	seed    uint64
	profile string
	rate    rate.Limit
	counts  []RuleCount
}

// RuleCount is one fault rule's counters in a session, as a snapshot
// keeps them; fault.Count is their home.
type RuleCount = fault.Count

// Seed returns the seed the session was provisioned with; fault rules
// draw from it.
func (st *State) Seed() uint64 { return st.fault.seed }

// FaultProfile returns the session's fault profile name, "" for none.
func (st *State) FaultProfile() string { return st.fault.profile }

// RateLimit returns the session's rate limit; zero for none.
func (st *State) RateLimit() rate.Limit { return st.fault.rate }

// RuleCounts returns the counters of the session's fault rules, n of
// them, for fault.Profile.Decide, which indexes them by rule.
func (st *State) RuleCounts(n int) []RuleCount {
	if len(st.fault.counts) < n {
		c := make([]RuleCount, n)
		copy(c, st.fault.counts)
		st.fault.counts = c
	}
	return st.fault.counts
}

// Delay moves a deterministic or fixed clock forward by d, as a slow
// answer would have taken; it reports false for a real clock, where the
// caller waits instead.
func (st *State) Delay(d time.Duration) bool {
	if st.clock.Mode == ClockReal {
		return false
	}
	if d > 0 {
		st.move(int64(d))
	}
	return true
}
