package migrate

import (
	"os"
	"strings"
	"testing"
)

// TestMain gives the go command that Run starts (go list -export, behind
// packages.Load's NeedTypes) this test binary's -race, so that it reads the
// race-instrumented packages the build cache holds from hack/test.sh's go vet
// -race instead of compiling k8s.io/api and its dependencies once more
// without the race detector (2.5 minutes on a cold cache).
func TestMain(m *testing.M) {
	if raceEnabled {
		os.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -race"))
	}
	os.Exit(m.Run())
}
