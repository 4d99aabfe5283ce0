//go:build !race

package decode

// raceFlags: see race_test.go.
var raceFlags []string
