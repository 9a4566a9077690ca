// Package deploy holds the fleet's deployment examples, not Go code: the
// nginx configuration in nginx/ and the Kubernetes manifests in
// kubernetes/ that docs/fleet.md explains. They are checked by the module
// in kubecheck/ (strictly against the Kubernetes API types, and against one
// another and nginx/), run by `make kubecheck`; cmd/wraith's fleet tests
// run nginx with nginx/'s files, and its container test starts the
// StatefulSet's command line (the image's ENTRYPOINT and the manifest's
// args) as Kubernetes would.
package deploy
