// Package prov names where an answer came from: the provenance a twin
// puts in X-Wraith-Provenance, the journal, the coverage report and the
// metrics. It is the one home of these names; everything that spells one
// imports it.
package prov

// Provenance values, in the order the coverage report lists hits
// (SPEC §5, the Twin Response Contract).
const (
	Recorded = "recorded"
	Template = "template"
	Handler  = "handler"
	Fixture  = "fixture"
	Fault    = "fault"
	Miss     = "miss"
)

// Webhook marks a journal entry that is no answer of the twin's but a
// webhook delivery it made (twin/webhook). Coverage and metrics count
// answers only, so it is not in All.
const Webhook = "webhook"

// All lists every provenance, in the order above.
var All = [...]string{Recorded, Template, Handler, Fixture, Fault, Miss}

// Count is how many provenances there are: the size of an array indexed
// by Index.
const Count = len(All)

// Index returns p's position in All, or -1 for a name that is not a
// provenance.
func Index(p string) int {
	for i, q := range All {
		if q == p {
			return i
		}
	}
	return -1
}
