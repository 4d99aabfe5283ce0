package queue_test

import (
	"sync/atomic"
	"testing"
)

// BenchmarkLineTransfer is the machine's floor for handing a key from one
// core to another: two goroutines take turns incrementing one word, each
// spinning until the other's increment is visible, so every turn moves the
// word's cache line from one core to the other once. ns/transfer is one
// turn. A queue whose workers take each key as soon as it is added pays
// such moves per key (the line goes to the worker, and back to the producer
// for its next write); one whose workers trail the producer by a backlog
// does not (docs/guide.md, "What it costs"). It needs two idle cores: on a
// busy machine a turn includes waiting for the scheduler.
//
//	cd bench/queue && go test -run '^$' -bench 'BenchmarkLineTransfer' -benchtime 2000000x -count 3 .
func BenchmarkLineTransfer(b *testing.B) {
	var line struct {
		_ [64]byte
		v atomic.Uint64
		_ [64]byte
	}
	turns := uint64(2 * b.N)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := uint64(1); i < turns; i += 2 {
			for line.v.Load() != i {
			}
			line.v.Store(i + 1)
		}
	}()
	b.ResetTimer()
	for i := uint64(0); i < turns; i += 2 {
		for line.v.Load() != i {
		}
		line.v.Store(i + 1)
	}
	<-done
	b.StopTimer()
	// ns/op counts two turns (one each way) per b.N: report one.
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(turns), "ns/transfer")
}
