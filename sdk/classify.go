package main

import (
	"fmt"
	"regexp"
	"strings"
)

// Classes of a test that passes on stripe-mock and not on Wraith, in the
// order they are tried: the first that fits is the test's.
const (
	classNotRun       = "not run (its test process ended first)"
	classRouteMissing = "route missing"
	classOtherTest    = "state from another test"
	classParamRefused = "valid parameter refused"
	classWrongType    = "answer of the wrong type"
	classFieldMissing = "field the test reads is missing"
	classWraithRight  = "wraith right (the provider's documented behaviour differs from stripe-mock's)"
	classUnclassified = "unclassified"
)

// classOrder is the order classes are reported in.
var classOrder = []string{classRouteMissing, classParamRefused, classWrongType, classFieldMissing,
	classOtherTest, classWraithRight, classNotRun, classUnclassified}

// verdict is why one test fails on Wraith.
type verdict struct {
	Class string `json:"class"`
	// Reason says what in the failure or in the twin's log decided the
	// class: the evidence, for a reader to check.
	Reason string `json:"reason"`
	// First is the first line of the failure that says what went wrong.
	First string `json:"first_line"`
	// Requests are the test's requests as the twin's log gives them
	// (METHOD PATH STATUS PROVENANCE), the first maxEvidence of them.
	Requests []string `json:"requests,omitempty"`
}

// maxEvidence bounds the requests a verdict lists.
const maxEvidence = 8

// Patterns in failure texts. Both SDKs put Stripe's error in their own:
// stripe-go prints the error as JSON ({"status":400,...,"type":
// "invalid_request_error"}), stripe-python as the exception class and its
// message (stripe.error.InvalidRequestError: Request req_...: ...).
var (
	reRouteMiss    = regexp.MustCompile(`route-miss|no route of twin`)
	reStatus       = regexp.MustCompile(`"status":\s*(\d{3})|\(status (\d{3})\)|HTTPStatusCode:(\d{3})`)
	reInvalid      = regexp.MustCompile(`invalid_request_error|InvalidRequestError`)
	reResource     = regexp.MustCompile(`resource_missing|No such [a-z_. ]+: '([^']+)'`)
	reUnexpected   = regexp.MustCompile(`_unexpected_state|\(([a-z]+_[A-Za-z0-9]+)\) has a status of`)
	reNoSuchID     = regexp.MustCompile(`No such [a-z_. ]+: '([^']+)'`)
	reStateID      = regexp.MustCompile(`\(([a-z]+_[A-Za-z0-9]+)\) has a status of`)
	reWrongType    = regexp.MustCompile(`json: cannot unmarshal|cannot unmarshal [a-z]+ into Go|Couldn't deserialize JSON|where False = isinstance\(|TypeError:`)
	reField        = regexp.MustCompile(`Expected value not to be nil|Should NOT be empty|nil pointer dereference|AttributeError|KeyError|has no attribute`)
	reUnmodelled   = regexp.MustCompile(`unmodelled-write`)
	reTestifyErr   = regexp.MustCompile(`^\s*Error:\s*(.*)$`)
	reStripeLog    = regexp.MustCompile(`Request error from Stripe \(status \d+\): .*`)
	reShouldBeTrue = regexp.MustCompile(`Should be true|IndexError: list index out of range`)
	reAssertFalse  = regexp.MustCompile(`IndexError|Should be true|Should be false|Not equal:|Should be empty|Should NOT be empty|Expected value not to be nil|assert `)
	reFirstUseful  = regexp.MustCompile(`(?i)error|panic|assert|expected|exception`)
)

// classify sorts one failure, from its text and the requests the test
// made (reqs, from the twin's log: each answer's status, route and
// provenance), and the writes of other tests of the same process before
// it (earlier), which a stateful twin carries into this one.
func classify(t *testResult, reqs, earlier []request) verdict {
	v := verdict{First: firstLine(t.Text)}
	for _, r := range reqs[:min(len(reqs), maxEvidence)] {
		v.Requests = append(v.Requests, fmt.Sprintf("%s %s %d %s", r.Method, r.Path, r.Status, r.Provenance))
	}
	text := t.Text
	set := func(class, reason string) verdict {
		v.Class, v.Reason = class, reason
		return v
	}
	if t.Outcome == missing {
		return set(classNotRun, "the test never ran on Wraith: its test binary ended before it")
	}
	if k, ok := known[t.Name]; ok {
		return set(k.Class, "read by hand: "+k.Reason)
	}
	if reRouteMiss.MatchString(text) {
		return set(classRouteMissing, "the twin answered route-miss")
	}
	for _, r := range reqs {
		if r.miss() {
			return set(classRouteMissing, "the twin's log: "+r.Method+" "+r.Path+" matched no route")
		}
	}
	// An id a refusal names, which another test wrote before this one.
	if id := refusedID(text); id != "" {
		if w, ok := lastWrite(earlier, id); ok {
			return set(classOtherTest, "another test of the process wrote "+id+" first ("+w.Method+" "+w.Path+")")
		}
	}
	if reUnmodelled.MatchString(text) {
		return set(classUnclassified, "the twin answered 501 unmodelled-write")
	}
	invalid := reInvalid.MatchString(text)
	if invalid && !reResource.MatchString(text) && !reUnexpected.MatchString(text) {
		if st := status(text); st == "" || st == "400" {
			return set(classParamRefused, "the twin refused the request with invalid_request_error, which stripe-mock, validating against the same description, accepted")
		}
	}
	// A Stripe error the SDK raised says more than the assertion or the
	// traceback around it.
	if reUnexpected.MatchString(text) {
		return set(classWraithRight, "the twin refused a transition from the object's state by its state machine, declared after Stripe's documentation (stripe-mock, stateless, accepts any); a class by rule: check the rule against Stripe's documentation")
	}
	if reResource.MatchString(text) {
		return set(classWraithRight, "the twin answered Stripe's resource_missing for an object the session does not hold (stripe-mock answers any id)")
	}
	if reWrongType.MatchString(text) {
		return set(classWrongType, "the client could not read the answer as the type it expects")
	}
	if reField.MatchString(text) {
		return set(classFieldMissing, "the test read a field the answer lacks")
	}
	if !reStripeLog.MatchString(text) && reAssertFalse.MatchString(text) {
		if w, ok := overlap(reqs, earlier); ok {
			return set(classOtherTest, "probably: another test of the process wrote "+w.Method+" "+w.Path+" before this test read it")
		}
		if reShouldBeTrue.MatchString(text) && emptyLists(reqs) {
			return set(classWraithRight, "the test reads only lists, the twin answered them 200 from the session, and the test wanted an entry: Stripe lists the account's own objects, and a fresh session holds none (stripe-mock lists a fixture)")
		}
	}
	return set(classUnclassified, "")
}

// lastWrite is the last write of earlier to a path naming id, a delete
// before any other write: a delete is what turns another test's reads
// into not-founds.
func lastWrite(earlier []request, id string) (request, bool) {
	var found request
	ok := false
	for _, r := range earlier {
		if !r.write() || !strings.Contains(r.Path+"/", "/"+id+"/") {
			continue
		}
		if !ok || r.Method == "DELETE" || found.Method != "DELETE" {
			found, ok = r, true
		}
	}
	return found, ok
}

// status is the HTTP status of the first Stripe error in text, "" if none.
func status(text string) string {
	m := reStatus.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	for _, g := range m[1:] {
		if g != "" {
			return g
		}
	}
	return ""
}

// overlap finds a write of an earlier test to a path the test read, or
// to its parent or a child of it: a list under the deleted object's
// collection, an item under a deleted parent.
func overlap(reqs, earlier []request) (request, bool) {
	for _, r := range reqs {
		for _, w := range earlier {
			if !w.write() {
				continue
			}
			if w.Path == r.Path || strings.HasPrefix(w.Path, r.Path+"/") || strings.HasPrefix(r.Path, w.Path+"/") {
				return w, true
			}
		}
	}
	return request{}, false
}

// emptyLists reports whether the test made requests and every one read a
// collection (a route that does not end in a parameter) and succeeded.
func emptyLists(reqs []request) bool {
	for _, r := range reqs {
		if r.Method != "GET" || r.Status != 200 || strings.HasSuffix(r.Route, "}") || r.Route == "" {
			return false
		}
	}
	return len(reqs) > 0
}

// refusedID is the id a not-found or a state refusal names, "" if none.
func refusedID(text string) string {
	if m := reNoSuchID.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	if m := reStateID.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// firstLine is the line of a failure that says what went wrong: testify's
// Error line (with the line after it when it only introduces it), a
// panic, or the first line that speaks of an error; cut to 240 bytes.
func firstLine(text string) string {
	lines := strings.Split(text, "\n")
	pick := reStripeLog.FindString(text)
	for i, l := range lines {
		if pick != "" {
			break
		}
		if m := reTestifyErr.FindStringSubmatch(l); m != nil {
			pick = strings.TrimSpace(m[1])
			if strings.HasSuffix(pick, ":") && i+1 < len(lines) {
				pick += " " + strings.TrimSpace(lines[i+1])
			}
			break
		}
	}
	if pick == "" {
		for _, l := range lines {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
				continue
			}
			if reFirstUseful.MatchString(l) {
				pick = l
				break
			}
		}
	}
	if pick == "" {
		for _, l := range lines {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "=== ") {
				pick = l
				break
			}
		}
	}
	pick = strings.Join(strings.Fields(pick), " ")
	if len(pick) > 240 {
		pick = pick[:240] + "…"
	}
	return pick
}
