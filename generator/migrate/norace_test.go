//go:build !race

package migrate

// raceEnabled: see race_test.go.
const raceEnabled = false
