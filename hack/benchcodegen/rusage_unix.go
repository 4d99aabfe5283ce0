//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// usage returns the CPU time and the peak RSS in MB (2^20 bytes) of a
// finished command. ru_maxrss counts the command and every descendant it
// waited for, taking the largest of them, not their sum.
func usage(ps *os.ProcessState) (time.Duration, float64) {
	cpu := ps.UserTime() + ps.SystemTime()
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return cpu, 0
	}
	maxrss := float64(ru.Maxrss) // KiB on Linux and the BSDs
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		maxrss /= 1024 // bytes there
	}
	return cpu, maxrss / 1024
}
