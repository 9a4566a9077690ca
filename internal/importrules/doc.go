// Package importrules holds no code: its test keeps the import directions
// of the project's style rules true for the whole module, so that a forbidden
// import fails `go test ./...` rather than a later review.
//
// The rules, each with its reason:
//
//   - supervisor may use no package of this module but ipc and
//     internal/procfs: the process boundary is the contract, and ipc is all
//     the two sides share; procfs reads /proc, and nothing of a twin.
//   - ipc uses the standard library only: its package doc is the wire spec,
//     readable without this module.
//   - cobra and pflag live only in cmd/wraith.
//   - nothing under twin/ imports supervisor, manifest or cmd/: a twin is an
//     http.Handler and a server, and knows nothing of processes or projects.
//   - nothing under twin/ imports ipc: the ready document is the contract
//     of a process and its parent, so the mains build and write it (through
//     internal/serve) from what the server says of itself (server.Info).
//     Where both sides need one fact, the twin's is the source and a test
//     holds ipc's equal (the session header, the control paths). Like every
//     rule here it reads the packages' own imports, not their tests'.
//   - manifest imports nothing of this module but internal/rate and
//     internal/size: it turns a file into structs, and shares with serve
//     the one rate-limit syntax and the one size syntax, which those keep
//     in the standard library only.
//   - internal/rate, internal/size and internal/procfs use the standard
//     library only, so every layer may import them.
//   - internal/testbin is for tests only.
//   - os.Exit is called only in main packages.
package importrules
