//go:build !race

package generator

// raceFlags: see race_test.go.
var raceFlags []string
