//go:build race

package migrate

// raceEnabled: this test binary has the race detector on.
const raceEnabled = true
