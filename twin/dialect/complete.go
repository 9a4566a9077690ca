package dialect

import "github.com/wraithdev/wraith/twin/object"

// Completer is what a dialect implements to complete a new entity before
// the engine keeps it, with what the provider fills in that neither the
// request nor the twin's format can say: GitHub's author of an issue, a
// pull request or a comment (the session's one user, whose URLs lead to
// where the request was sent), Stripe's invoice prefix of a customer.
// What it sets is kept, so every later read and list shows it, where a
// change made to the answer only (Handler.Answered) would show in the
// create's answer alone.
type Completer interface {
	// Complete sets fields of n.Object, top-level ones only: the engine
	// shares the skeleton's nested values with the new entity.
	Complete(n New)
}

// New is a create the engine is about to keep.
type New struct {
	Route    string         // the matched route, "POST /repos/{owner}/{repo}/issues"
	Resource string         // the resource's name, "issue"
	Object   *object.Object // the entity as it will be kept, its ids, parameters and rules applied
	Here     Here           // where the request was sent
	// Sent reports whether the request sent the top-level parameter
	// name, so that what the client chose, even empty, is kept.
	Sent func(name string) bool
}
