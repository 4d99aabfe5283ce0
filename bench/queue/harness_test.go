package queue_test

import (
	"context"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"

	ourwq "github.com/informer-gen/informer-gen/runtime/workqueue"
)

// BenchmarkHarness is an independent harness's shape, with the two queues
// alternated in one process. Each round, for ours and then client-go's typed
// rate-limiting queue (both with the default controller limiter), producers
// add harnessKeys distinct keys while workers Get → work (a CPU spin) →
// Forget → Done; a round's time runs from the first add until every key was
// processed. One benchmark iteration is harnessRounds rounds of each queue;
// run it with -benchtime 1x. Shapes: 1–16 workers, no work or 2 µs per key,
// one producer or four, plain Add (adds=add) or AddRateLimited (adds=rl-add,
// on a per-key exponential limiter with a zero base and no overall bucket,
// so that no key is delayed while every Forget has a failure to clear —
// the default limiter's bucket would pace all but the first 100 keys at 10
// per second).
//
// It reports the median over the rounds of each queue's keys per second
// (ours-items/s, client-go-items/s) and of the process's CPU time per key
// (ours-cpu-ns/key, client-go-cpu-ns/key: the work's included, and steadier
// than keys per second on a busy machine); the median of the per-round
// ratios (ratio, ours over client-go: both sides of a ratio ran back to back
// on the same machine), the lowest and the highest; and, with work, ours
// against what the work alone allows on GOMAXPROCS cores (ours-ceiling-%)
// and against a round of the same spins with no queue (work-only-items/s,
// ours-work-only-%, and that round's CPU per key, work-only-cpu-ns/key).
// The rounds' goroutines carry a pprof label, round=ours, client-go or
// work-only, so that a -cpuprofile can be split by round with -tagfocus.
//
// The harness's own shape (one producer, plain Add, 8 workers, 2 µs of
// work), then the whole matrix:
//
//	cd bench/queue && go test -run '^$' -bench 'BenchmarkHarness/workers=8/work=2µs/producers=1/adds=add$' -benchtime 1x .
//	cd bench/queue && go test -run '^$' -bench 'BenchmarkHarness' -benchtime 1x .
func BenchmarkHarness(b *testing.B) {
	for _, workers := range []int{1, 2, 4, 8, 16} {
		for _, work := range []time.Duration{0, 2 * time.Microsecond} {
			for _, producers := range []int{1, 4} {
				for _, adds := range []string{"add", "rl-add"} {
					if adds == "rl-add" && producers != 1 {
						continue
					}
					name := "workers=" + strconv.Itoa(workers) + "/work=" + workName(work) +
						"/producers=" + strconv.Itoa(producers) + "/adds=" + adds
					b.Run(name, func(b *testing.B) {
						benchHarness(b, harnessShape{workers: workers, producers: producers, work: work, rateLimitedAdds: adds == "rl-add"})
					})
				}
			}
		}
	}
}

// BenchmarkHarnessLocalCount is BenchmarkHarness's plain-add shapes with
// 1 and 8 workers and one change: each worker counts the keys it processed
// in a local variable and adds to the round's shared total every 1,024
// keys, and the producer ends the round with ShutDownWithDrain. In
// BenchmarkHarness every key's worker adds 1 to one shared counter, a cache
// line that both cores write once a key; here nothing outside the queues
// is written by every key, as in a controller whose workers share no
// state. It reports what BenchmarkHarness reports.
//
//	cd bench/queue && go test -run '^$' -bench 'BenchmarkHarnessLocalCount/workers=8/work=2µs' -benchtime 1x .
func BenchmarkHarnessLocalCount(b *testing.B) {
	for _, workers := range []int{1, 8} {
		for _, work := range []time.Duration{0, 2 * time.Microsecond} {
			name := "workers=" + strconv.Itoa(workers) + "/work=" + workName(work) + "/producers=1/adds=add"
			b.Run(name, func(b *testing.B) {
				benchHarness(b, harnessShape{workers: workers, producers: 1, work: work, localCount: true})
			})
		}
	}
}

const (
	harnessKeys   = 500_000
	harnessRounds = 3
)

type harnessShape struct {
	workers, producers int
	work               time.Duration
	rateLimitedAdds    bool
	// localCount: see BenchmarkHarnessLocalCount.
	localCount bool
}

// harnessQueue is what a round needs of a queue.
type harnessQueue interface {
	Add(string)
	AddRateLimited(string)
	Get() (string, bool)
	Forget(string)
	Done(string)
	ShutDown()
	ShutDownWithDrain()
}

func benchHarness(b *testing.B, s harnessShape) {
	ks := keys(harnessKeys)
	newOurs := func() harnessQueue {
		var rl ourwq.RateLimiter[string] // nil: the default
		if s.rateLimitedAdds {
			rl = ourwq.NewExponentialRateLimiter[string](0, time.Second)
		}
		return ourwq.New(ourwq.Options[string]{RateLimiter: rl})
	}
	newClientGo := func() harnessQueue {
		rl := workqueue.DefaultTypedControllerRateLimiter[string]()
		if s.rateLimitedAdds {
			rl = workqueue.NewTypedItemExponentialFailureRateLimiter[string](0, time.Second)
		}
		return workqueue.NewTypedRateLimitingQueue(rl)
	}
	var ours, cg, ratios, oursCPU, cgCPU, workOnly, workOnlyCPU, oursFaults, cgFaults []float64
	for range b.N {
		for range harnessRounds {
			if s.work > 0 {
				w, wcpu := workOnlyRound(len(ks), s)
				workOnly, workOnlyCPU = append(workOnly, w), append(workOnlyCPU, wcpu)
			}
			f0 := minorFaults()
			o, ocpu := harnessRound("ours", newOurs(), ks, s)
			f1 := minorFaults()
			c, ccpu := harnessRound("client-go", newClientGo(), ks, s)
			f2 := minorFaults()
			oursFaults = append(oursFaults, float64(f1-f0)/float64(len(ks)))
			cgFaults = append(cgFaults, float64(f2-f1)/float64(len(ks)))
			ours, oursCPU = append(ours, o), append(oursCPU, ocpu)
			cg, cgCPU = append(cg, c), append(cgCPU, ccpu)
			ratios = append(ratios, o/c)
		}
	}
	b.ReportMetric(median(ours), "ours-items/s")
	b.ReportMetric(median(cg), "client-go-items/s")
	b.ReportMetric(median(oursCPU), "ours-cpu-ns/key")
	b.ReportMetric(median(cgCPU), "client-go-cpu-ns/key")
	b.ReportMetric(median(oursFaults), "ours-faults/key")
	b.ReportMetric(median(cgFaults), "client-go-faults/key")
	reportRatios(b, ratios)
	if s.work > 0 {
		ceiling := float64(runtime.GOMAXPROCS(0)) / s.work.Seconds()
		b.ReportMetric(100*median(ours)/ceiling, "ours-ceiling-%")
		b.ReportMetric(median(workOnly), "work-only-items/s")
		b.ReportMetric(median(workOnlyCPU), "work-only-cpu-ns/key")
		b.ReportMetric(100*median(ours)/median(workOnly), "ours-work-only-%")
	}
}

// workOnlyRound is a round without a queue: the workers spin for their
// share of the keys' work and nothing else. Its keys per second is what
// the work costs on this machine as it is (the spin reads the clock, which
// is not free), the ceiling a queue is measured against in
// ours-work-only-%.
func workOnlyRound(keys int, s harnessShape) (perSec, cpuPerKey float64) {
	runtime.GC()
	defer labelRound("work-only")()
	cpu0 := cpuTime()
	var wg sync.WaitGroup
	start := time.Now()
	for w := range s.workers {
		wg.Go(func() {
			for i := w; i < keys; i += s.workers {
				spin(s.work)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	return float64(keys) / elapsed.Seconds(), float64(cpuTime()-cpu0) / float64(keys)
}

// labelRound labels the calling goroutine, and so the goroutines it starts,
// with the round's kind (round=ours, client-go or work-only) for CPU
// profiles (go tool pprof -tagfocus round=ours), until the returned func
// is called.
func labelRound(kind string) func() {
	prev := context.Background()
	pprof.SetGoroutineLabels(pprof.WithLabels(prev, pprof.Labels("round", kind)))
	return func() { pprof.SetGoroutineLabels(prev) }
}

// harnessRound runs one round on q and returns keys processed per second
// and the process's CPU time per key (the work's included).
func harnessRound(kind string, q harnessQueue, ks []string, s harnessShape) (perSec, cpuPerKey float64) {
	runtime.GC()
	defer labelRound(kind)()
	cpu0 := cpuTime()
	var processed atomic.Int64
	all := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	count := func(n int64) {
		if processed.Add(n) == int64(len(ks)) {
			close(all)
		}
	}
	for range s.workers {
		wg.Go(func() {
			var local int64 // with localCount: keys not yet counted
			defer func() {
				if local > 0 {
					count(local)
				}
			}()
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				spin(s.work)
				q.Forget(k)
				q.Done(k)
				if !s.localCount {
					count(1)
				} else if local++; local == 1024 {
					count(local)
					local = 0
				}
			}
		})
	}
	var pwg sync.WaitGroup
	for p := range s.producers {
		pwg.Go(func() {
			for i := p; i < len(ks); i += s.producers {
				if s.rateLimitedAdds {
					q.AddRateLimited(ks[i])
				} else {
					q.Add(ks[i])
				}
			}
		})
	}
	pwg.Wait()
	if s.localCount {
		q.ShutDownWithDrain() // the workers then count their last keys and return
	}
	<-all
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	q.ShutDown()
	wg.Wait()
	return float64(len(ks)) / elapsed.Seconds(), float64(cpu) / float64(len(ks))
}

// reportRatios reports the median, lowest and highest of per-round ratios
// (ratio, ratio-min, ratio-max).
func reportRatios(b *testing.B, ratios []float64) {
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(slices.Min(ratios), "ratio-min")
	b.ReportMetric(slices.Max(ratios), "ratio-max")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
