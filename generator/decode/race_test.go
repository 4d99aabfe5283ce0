//go:build race

package decode

// raceFlags are the go command flags that let go list -export (behind
// packages.Load's NeedTypes) use the race-instrumented packages the build
// cache already holds (hack/test.sh tests with -race), instead of compiling
// k8s.io/api and its dependencies once more without the race detector.
var raceFlags = []string{"-race"}
