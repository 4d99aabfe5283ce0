//go:build race

package main

// raceFlags are the go build flags that make a binary share this test
// binary's compiled packages: with the race detector on, the build cache
// holds race-instrumented packages (from go vet -race and this test's own
// build), and a plain build of the contender would compile every one of them
// again without it.
var raceFlags = []string{"-race"}
