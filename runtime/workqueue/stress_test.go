package workqueue_test

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// TestNoLostWakeup adds one to three keys at a time and waits for the
// workers to finish them before adding more, so that most adds find every
// worker asleep or on its way to sleep: an Add that misses a worker going to
// sleep would leave a key unprocessed and fail the test after a minute.
func TestNoLostWakeup(t *testing.T) {
	const workers, rounds = 8, 5000
	q := workqueue.New(workqueue.Options[int]{})
	finished := make(chan int, 3)
	var wg sync.WaitGroup
	for range workers {
		// Not startWorker: the key is reported finished after Done, so the
		// next adds find this worker on its way back to sleep.
		wg.Go(func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				q.Done(k)
				finished <- k
			}
		})
	}
	r := rand.New(rand.NewPCG(3, 3))
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for round := range rounds {
		n := 1 + r.IntN(3)
		for i := range n {
			q.Add(round*3 + i)
		}
		for range n {
			select {
			case <-finished:
			case <-timeout.C:
				t.Fatalf("round %d: a key was never handed out (Len = %d)", round, q.Len())
			}
		}
	}
	q.ShutDown()
	wg.Wait()
}

// TestBurstReachesIdleWorkers: a burst of n keys added while every worker
// sleeps must reach n workers at once (Add wakes a worker only when one is
// waiting, so this pins that no wake-up is skipped). Each worker holds its
// key until n workers hold one; if a wake-up were lost, every goroutine
// would block and synctest would report the deadlock.
func TestBurstReachesIdleWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const workers = 8
		q := workqueue.New(workqueue.Options[int]{})
		var held sync.WaitGroup
		release := make(chan struct{})
		var wg sync.WaitGroup
		for range workers {
			startWorker(&wg, q, func(int) {
				held.Done()
				<-release
			})
		}
		for n := 1; n <= workers; n++ {
			synctest.Wait() // every worker asleep in Get
			held.Add(n)
			for i := range n {
				q.Add(n*100 + i)
			}
			held.Wait() // n workers hold a key at once
			for range n {
				release <- struct{}{}
			}
		}
		q.ShutDown()
		wg.Wait()
	})
}

// TestShutDownWithDrainUnderLoad shuts the queue down with drain while
// producers are still adding and workers re-add the keys they hold: when
// ShutDownWithDrain returns, no key may be queued or in flight.
func TestShutDownWithDrainUnderLoad(t *testing.T) {
	for iter := range 20 {
		const workers, producers, keys = 8, 3, 50
		q := workqueue.New(workqueue.Options[int]{})
		var inFlight atomic.Int32
		var wg sync.WaitGroup
		for w := range workers {
			r := rand.New(rand.NewPCG(uint64(iter), uint64(w)))
			startWorker(&wg, q, func(k int) {
				inFlight.Add(1)
				if r.IntN(3) == 0 {
					q.Add(k)
				}
				inFlight.Add(-1)
			})
		}
		stop := make(chan struct{})
		var added atomic.Int64
		var pwg sync.WaitGroup
		for p := range producers {
			pwg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(iter), uint64(100+p)))
				for {
					select {
					case <-stop:
						return
					default:
						q.Add(r.IntN(keys))
						added.Add(1)
					}
				}
			})
		}
		for added.Load() < 2000 { // shut down mid-stream, not before the load
			runtime.Gosched()
		}
		q.ShutDownWithDrain()
		if n := inFlight.Load(); n != 0 {
			t.Fatalf("iteration %d: ShutDownWithDrain returned with %d keys in flight", iter, n)
		}
		if n := q.Len(); n != 0 {
			t.Fatalf("iteration %d: ShutDownWithDrain returned with %d keys queued", iter, n)
		}
		close(stop)
		pwg.Wait()
		wg.Wait()
		if n := q.Len(); n != 0 {
			t.Fatalf("iteration %d: %d keys queued after shutdown", iter, n)
		}
	}
}

// TestMetricsUnderConcurrency runs producers and workers on a few keys with
// a MetricsProvider and checks the counters agree: every counted add is handed out exactly once, so adds, latency
// observations, work durations and Gets are equal, and the depth returns to
// zero.
func TestMetricsUnderConcurrency(t *testing.T) {
	rec := newRecorder()
	q := workqueue.New(workqueue.Options[int]{Name: "stress", Metrics: rec, MetricsUpdatePeriod: time.Millisecond})
	var gets atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		r := rand.New(rand.NewPCG(uint64(w), 11))
		startWorker(&wg, q, func(k int) {
			gets.Add(1)
			if r.IntN(4) == 0 {
				q.Add(k)
			}
		})
	}
	var pwg sync.WaitGroup
	for p := range 2 {
		pwg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(p), 12))
			for range 5000 {
				q.Add(r.IntN(5))
				runtime.Gosched()
			}
		})
	}
	pwg.Wait()
	q.ShutDownWithDrain()
	wg.Wait()
	n := float64(gets.Load())
	if v := rec.value("adds"); v != n {
		t.Errorf("adds = %v, Gets = %v", v, n)
	}
	if v := rec.value("depth"); v != 0 {
		t.Errorf("depth = %v after drain, want 0", v)
	}
	if v := float64(len(rec.observed("latency"))); v != n {
		t.Errorf("%v latency observations, Gets = %v", v, n)
	}
	if v := float64(len(rec.observed("work"))); v != n {
		t.Errorf("%v work duration observations, Gets = %v", v, n)
	}
}
