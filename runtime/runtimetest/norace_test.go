//go:build !race

package runtimetest_test

// raceEnabled: the race detector is on.
const raceEnabled = false
