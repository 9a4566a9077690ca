// Package deploy holds the fleet's deployment examples, not Go code: the
// nginx configuration in nginx/ and the Kubernetes manifests in
// kubernetes/ that docs/fleet.md explains. Its tests check that the
// manifests agree with one another and with the nginx configuration; the
// nginx configuration itself is run by cmd/wraith's fleet test.
package deploy
