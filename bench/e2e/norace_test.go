//go:build !race

package main

// raceFlags: see race_test.go.
var raceFlags []string
