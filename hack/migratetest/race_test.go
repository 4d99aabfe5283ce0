//go:build race

package migratetest

// raceEnabled: this test binary has the race detector on. The go commands
// the tests run then build with -race too (through GOFLAGS), so that they
// compile against the race-instrumented client-go and k8s.io packages the
// build cache already holds from the other modules' go test -race, rather
// than compiling all of them once more without it (4 minutes on a cold
// cache).
const raceEnabled = true
