//go:build race

package testbin

// raceEnabled builds children with the race detector when the tests run
// with it, so races in a served twin fail tests that drive it.
const raceEnabled = true
