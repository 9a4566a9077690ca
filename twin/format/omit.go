package format

// Omittable are the operations a resource may declare it does not have.
// Retrieve is what makes a resource, so it cannot be omitted; a resource
// without DELETE says delete = "none".
var Omittable = []string{"list", "create", "update"}

// Omits reports whether the resource omits op ("list", "create",
// "update"): the provider has no such route, so the twin declares none
// and a request for it is a route miss. Stripe's balance transactions are
// listed and retrieved, never created or updated.
func (r *Resource) Omits(op string) bool {
	for _, o := range r.Omit {
		if o == op {
			return true
		}
	}
	return false
}

func validateOmit(r *Resource, at string, probs *Problems) {
	seen := map[string]bool{}
	for _, o := range r.Omit {
		ok := false
		for _, v := range Omittable {
			ok = ok || o == v
		}
		if !ok || seen[o] {
			probs.addf("%s: omit %q: want distinct values of %q", at, o, Omittable)
		}
		seen[o] = true
	}
	if r.Omits("create") && len(r.CreatePaths) > 0 {
		probs.addf("%s: omit = [\"create\"] and create_paths contradict each other: drop one", at)
	}
}
