//go:build race

package generator

// raceFlags are the go command flags that let a go vet or go build this test
// runs share the race-instrumented packages the build cache already holds
// (hack/test.sh vets and tests with -race); without them, the go command
// compiles every dependency of the golden trees once more, uninstrumented.
var raceFlags = []string{"-race"}
