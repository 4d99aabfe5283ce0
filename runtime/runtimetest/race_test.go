//go:build race

package runtimetest_test

// raceEnabled: the race detector is on (every allocation and access costs
// several times as much; the scale test runs at a tenth of its size).
const raceEnabled = true
