package queue_test

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// BenchmarkThroughput is the matrix of queue shapes: producers adding b.N
// distinct keys while workers Get them, work for a while (a CPU spin) and
// Done them; the clock stops when every key has been processed. Shapes:
//   - shape=plain: Get → work → Done; client-go's contender is its plain
//     typed queue.
//   - shape=rl: Get → work → Forget → Done on a rate-limiting queue
//     (client-go's NewTypedRateLimitingQueue with the default controller
//     limiter), as a controller's loop does.
//
// ours-priority adds 7 of every 8 keys at low priority and the 8th at
// normal priority, so its queue runs with two priority lanes; ours-fifo
// adds every key at one priority. items/s is keys per second;
// ceiling-% is items/s against GOMAXPROCS/work, what the work alone allows.
//
//	cd bench/queue && go test -run '^$' -bench 'BenchmarkThroughput/.*/workers=8/work=2µs/producers=1/shape=rl' -count 3 .
func BenchmarkThroughput(b *testing.B) {
	for _, c := range []contender{oursFIFOQ, oursPriority, clientGoQ, crPriorityQ} {
		for _, workers := range []int{1, 2, 4, 8, 16} {
			for _, work := range []time.Duration{0, 2 * time.Microsecond} {
				for _, producers := range []int{1, 4} {
					for _, shape := range []string{"plain", "rl"} {
						name := "queue=" + c.name + "/workers=" + strconv.Itoa(workers) + "/work=" + workName(work) +
							"/producers=" + strconv.Itoa(producers) + "/shape=" + shape
						b.Run(name, func(b *testing.B) {
							newQ := c.new
							if c.name == clientGoQ.name && shape == "plain" {
								newQ = func() queueUT { return clientGo{plainClientGo{workqueue.NewTyped[string]()}} }
							}
							benchThroughput(b, newQ, workers, producers, work, shape == "rl")
						})
					}
				}
			}
		}
	}
}

func workName(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// plainClientGo gives client-go's plain queue the rate-limiting methods the
// harness calls (Forget is never called in shape=plain).
type plainClientGo struct {
	workqueue.TypedInterface[string]
}

func (plainClientGo) AddAfter(string, time.Duration) {}
func (plainClientGo) AddRateLimited(string)          {}
func (plainClientGo) Forget(string)                  {}
func (plainClientGo) NumRequeues(string) int         { return 0 }

func benchThroughput(b *testing.B, newQ func() queueUT, workers, producers int, work time.Duration, forget bool) {
	ks := keys(b.N)
	q := newQ()
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	// The clock stops when every key was processed, not at
	// ShutDownWithDrain: controller-runtime's queue does not drain (its
	// Get reports shutdown at once).
	var processed atomic.Int64
	all := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				spin(work)
				if forget {
					q.Forget(k)
				}
				q.Done(k)
				if processed.Add(1) == int64(b.N) {
					close(all)
				}
			}
		})
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			for i := p; i < len(ks); i += producers {
				if i%8 == 7 {
					q.Add(ks[i])
				} else {
					q.AddLow(ks[i])
				}
			}
		})
	}
	pwg.Wait()
	<-all
	b.StopTimer()
	q.ShutDown()
	wg.Wait()
	perSec := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(perSec, "items/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	if work > 0 {
		ceiling := float64(runtime.GOMAXPROCS(0)) / work.Seconds()
		b.ReportMetric(100*perSec/ceiling, "ceiling-%")
	}
}

// cpuTime is the CPU time (user+system, all threads) the process has used.
// minorFaults is the process's minor page faults so far: first touches of
// memory the kernel has not backed yet (fresh heap, or heap the Go runtime
// gave back), each ~20 µs on a VM that reports freed pages to its host.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
