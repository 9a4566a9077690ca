// Package panel is the panel of real API descriptions that imported twins
// are measured on (SPEC §17): descriptions.tsv pins each one by the npm
// package that ships it, its version and the file's sha256; fetch.sh
// fetches them into .panel/; overlays/ holds the overlays some of them
// need. The runner is a test behind the "panel" build tag, run by
// `make panel` and not by the default test run: for each description it
// imports and serves a twin as real processes, runs a
// create/read/list/update/delete flow in two sessions and a sweep of
// every operation whose answers it validates against the description,
// and prints a table. docs/import.md has the figures.
package panel
