//go:build !unix

package main

import (
	"os"
	"time"
)

// usage returns the CPU time of a finished command; peak RSS is not available
// on this platform and is reported as 0.
func usage(ps *os.ProcessState) (time.Duration, float64) {
	return ps.UserTime() + ps.SystemTime(), 0
}
