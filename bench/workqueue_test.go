package bench_test

import (
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"

	ourwq "github.com/informer-gen/informer-gen/runtime/workqueue"
)

// wqUnderTest is the part of the API both queues share.
type wqUnderTest interface {
	Add(string)
	Get() (string, bool)
	Done(string)
	ShutDownWithDrain()
}

type wqImpl struct {
	name string
	new  func() wqUnderTest
}

// wqImpls pairs our queue with client-go's plain typed queue; wqRateLimitedImpls
// with client-go's rate-limiting queue (a delaying queue with its own
// goroutine underneath), which is what controllers use. Ours is one type for
// both.
var (
	wqImpls = []wqImpl{
		{"ours", func() wqUnderTest { return ourwq.New(ourwq.Options[string]{}) }},
		{"client-go", func() wqUnderTest { return workqueue.NewTyped[string]() }},
	}
	wqRateLimitedImpls = []wqImpl{
		{"ours", func() wqUnderTest { return ourwq.New(ourwq.Options[string]{}) }},
		{"client-go", func() wqUnderTest {
			return workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		}},
	}
)

// wqKeys returns n distinct "namespace/name" keys.
func wqKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "namespace-" + strconv.Itoa(i%100) + "/object-" + strconv.Itoa(i)
	}
	return keys
}

// benchWQThroughput: one producer adds b.N distinct keys while `workers`
// goroutines Get and Done them; the clock stops when the drained queue has
// shut down. ns/op is per key end to end.
func benchWQThroughput(b *testing.B, impls []wqImpl, workers int) {
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			keys := wqKeys(b.N)
			q := impl.new()
			// The keys are b.N allocations made before the clock starts;
			// collect now so the GC cycles they trigger do not run inside
			// the timed loop. Otherwise the side with the larger b.N (the
			// faster one) pays for more setup garbage, the more so when
			// other benchmarks' fixtures (the 100k-pod stores) are still
			// alive in the process and every cycle marks them.
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := wqCPUTime()
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for {
						k, shutdown := q.Get()
						if shutdown {
							return
						}
						q.Done(k)
					}
				})
			}
			for _, k := range keys {
				q.Add(k)
			}
			q.ShutDownWithDrain()
			wg.Wait()
			b.ReportMetric(float64(wqCPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

func BenchmarkWorkQueueWorkers1(b *testing.B) { benchWQThroughput(b, wqImpls, 1) }
func BenchmarkWorkQueueWorkers8(b *testing.B) { benchWQThroughput(b, wqImpls, 8) }
func BenchmarkWorkQueueRateLimitingWorkers1(b *testing.B) {
	benchWQThroughput(b, wqRateLimitedImpls, 1)
}
func BenchmarkWorkQueueRateLimitingWorkers8(b *testing.B) {
	benchWQThroughput(b, wqRateLimitedImpls, 8)
}

// BenchmarkWorkQueueAddGetDone is one goroutine doing Add, Get, Done on a
// queue that already holds 1000 keys: the cost of the bookkeeping without
// any handoff between goroutines.
func BenchmarkWorkQueueAddGetDone(b *testing.B) {
	for _, impl := range wqImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			keys := wqKeys(4096)
			q := impl.new()
			for _, k := range keys[:1000] {
				q.Add(k)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				q.Add(keys[i%len(keys)])
				k, _ := q.Get()
				q.Done(k)
			}
			b.StopTimer()
			drainWQ(q)
		})
	}
}

func drainWQ(q wqUnderTest) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			k, shutdown := q.Get()
			if shutdown {
				return
			}
			q.Done(k)
		}
	}()
	q.ShutDownWithDrain()
	<-done
}

// wqCPUTime is the CPU time (user+system, all threads) the process has used.
// Reported per op beside ns/op because on a shared, loaded machine the wall
// time of a goroutine handoff measures the scheduler more than the queue.
func wqCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWorkQueueBacklog is one goroutine adding a backlog of 100k keys
// and then working it off: the bookkeeping cost when the queue is long (big
// maps, cache misses), with no goroutine handoff in the measurement.
func BenchmarkWorkQueueBacklog(b *testing.B) {
	const backlog = 100_000
	for _, impl := range wqImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			keys := wqKeys(backlog)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				q := impl.new()
				for _, k := range keys {
					q.Add(k)
				}
				for range keys {
					k, _ := q.Get()
					q.Done(k)
				}
				b.StopTimer()
				drainWQ(q)
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*backlog), "ns/key")
		})
	}
}
