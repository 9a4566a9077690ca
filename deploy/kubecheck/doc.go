// Package kubecheck holds one test: that the Kubernetes manifests in
// ../kubernetes decode strictly into the Kubernetes API's own types (an
// unknown or misspelt field fails, as `kubectl apply --validate=strict`
// would), and that they agree with one another, with the image and with
// the nginx configuration in ../nginx.
//
// It is a module of its own so that the Kubernetes API modules it needs
// stay out of Wraith's module graph: nothing Wraith builds, and nothing a
// program using wraithtest downloads, depends on them. `make test` runs it
// (`make kubecheck`).
package kubecheck
