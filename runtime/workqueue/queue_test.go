package workqueue_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

func get[K comparable](t *testing.T, q *workqueue.Queue[K]) K {
	t.Helper()
	k, shutdown := q.Get()
	if shutdown {
		t.Fatalf("Get: unexpected shutdown")
	}
	return k
}

func TestAddDeduplicatesQueuedKeys(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	q.Add("a")
	if n := q.Len(); n != 2 {
		t.Fatalf("Len = %d, want 2", n)
	}
	if k := get(t, q); k != "a" {
		t.Fatalf("first Get = %q, want a", k)
	}
	if k := get(t, q); k != "b" {
		t.Fatalf("second Get = %q, want b", k)
	}
	if n := q.Len(); n != 0 {
		t.Fatalf("Len after draining = %d, want 0", n)
	}
}

func TestReAddWhileProcessingIsRequeuedOnceAfterDone(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	defer q.ShutDown()
	q.Add("a")
	k := get(t, q)
	q.Add("a")
	q.Add("a")
	if n := q.Len(); n != 0 {
		t.Fatalf("Len while a is processing = %d, want 0 (a must not be handed out twice)", n)
	}
	q.Done(k)
	if n := q.Len(); n != 1 {
		t.Fatalf("Len after Done = %d, want 1", n)
	}
	if k := get(t, q); k != "a" {
		t.Fatalf("Get = %q, want a", k)
	}
	q.Done("a")
	if n := q.Len(); n != 0 {
		t.Fatalf("Len after second Done = %d, want 0", n)
	}
	// Done of a key that is not processing is a no-op.
	q.Done("never-added")
	q.Done("a")
	if n := q.Len(); n != 0 {
		t.Fatalf("Len after stray Done = %d, want 0", n)
	}
}

func TestFIFOOrder(t *testing.T) {
	q := workqueue.New(workqueue.Options[int]{})
	defer q.ShutDown()
	for i := range 100 { // more than the ring's initial capacity, with wraparound
		q.Add(i)
		if i%3 == 0 {
			q.Done(get(t, q))
		}
	}
	var got []int
	for q.Len() > 0 {
		k := get(t, q)
		got = append(got, k)
		q.Done(k)
	}
	want := []int{}
	for i := range 100 {
		want = append(want, i)
	}
	want = want[34:] // 34 keys (i%3==0 for i<100) were taken in order along the way
	if !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
}

// TestNeverTwoWorkersOnOneKey hammers keys from several producers with many
// workers and checks that no key is ever held by two workers, that every add
// is followed by a processing of its key that started after it, and that the
// queue ends empty. The cases: 64 keys and 40 workers; and one or three keys
// with 8 workers that also re-add the key they hold (so Done finds it added
// again and requeues it) while the producers yield after every add, so most
// adds race a Get or a Done.
func TestNeverTwoWorkersOnOneKey(t *testing.T) {
	for _, tc := range []struct {
		name                           string
		keys, workers, producers, adds int
		fewKeys                        bool // workers re-add, producers yield
	}{
		{"keys=64", 64, 40, 4, 5000, false},
		{"keys=1", 1, 8, 2, 20000, true},
		{"keys=3", 3, 8, 2, 20000, true},
	} {
		t.Run(tc.name, func(t *testing.T) { hammerRacing(t, tc.keys, tc.workers, tc.producers, tc.adds, tc.fewKeys, false) })
		// The same with every add at a random priority, so that adds that
		// move a queued key to a higher priority race the Gets taking it.
		t.Run(tc.name+"/priorities", func(t *testing.T) {
			hammerRacing(t, tc.keys, tc.workers, tc.producers, tc.adds, tc.fewKeys, true)
		})
	}
}

var hammerPriorities = []int{workqueue.LowPriority, 0, 0, 7}

// hammerRacing runs hammer, and with fewKeys checks that the run raced
// enough to prove something: usually thousands of processings; the floor
// is low because with one key most adds are deduplicated and how many race
// a Get depends on the scheduler (one run in 200 had 694 for 40,000 adds).
// A run in which the OS parked the worker holding the key while the
// producers ran all their adds (one in a few hundred on a quiet machine,
// more with other tests running) is run again, up to five times. With
// more Ps than CPUs that is the rule, so the floor is not checked then.
func hammerRacing(t *testing.T, keys, workers, producers, adds int, fewKeys, prios bool) {
	floor := int32(adds / 100)
	for attempt := 1; ; attempt++ {
		n := hammer(t, keys, workers, producers, adds, fewKeys, prios)
		if !fewKeys || runtime.GOMAXPROCS(0) > runtime.NumCPU() || n >= floor || t.Failed() {
			return
		}
		if attempt == 5 {
			t.Fatalf("at most %d processings for %d adds in %d runs: the test no longer races Add with Get and Done", n, producers*adds, attempt)
		}
		t.Logf("run %d: only %d processings for %d adds; running again", attempt, n, producers*adds)
	}
}

// hammer runs the workload once, checks the queue's guarantees, and
// returns how many processings there were.
func hammer(t *testing.T, keys, workers, producers, adds int, fewKeys, prios bool) int32 {
	q := workqueue.New(workqueue.Options[int]{})
	inFlight := make([]atomic.Int32, keys)
	// addedGen[k] counts adds of k; seenGen[k] is the addedGen observed at the
	// start of the latest processing. At the end seen must equal added.
	var mu sync.Mutex
	addedGen, seenGen := make([]int, keys), make([]int, keys)
	var violations, processed atomic.Int32
	var prioSeq atomic.Uint32
	add := func(k int) {
		mu.Lock()
		addedGen[k]++
		mu.Unlock()
		if prios {
			p := hammerPriorities[prioSeq.Add(1)%uint32(len(hammerPriorities))]
			q.AddWithOpts(workqueue.AddOpts{Priority: p}, k)
			return
		}
		q.Add(k)
	}
	var wg sync.WaitGroup
	for w := range workers {
		r := rand.New(rand.NewPCG(uint64(w), 7))
		startWorker(&wg, q, func(k int) {
			if inFlight[k].Add(1) != 1 {
				violations.Add(1)
			}
			mu.Lock()
			seenGen[k] = addedGen[k]
			mu.Unlock()
			processed.Add(1)
			switch {
			case fewKeys && r.IntN(8) == 0 && !q.ShuttingDown():
				add(k) // requeued by the Done that follows
			case !fewKeys && r.IntN(4) == 0:
				runtimeYield()
			}
			inFlight[k].Add(-1)
		})
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(p), 1))
			for range adds {
				add(r.IntN(keys))
				if fewKeys {
					runtime.Gosched() // let workers take it: most adds then race a Get or a Done
				}
			}
		})
	}
	pwg.Wait()
	q.ShutDownWithDrain()
	wg.Wait()
	if v := violations.Load(); v != 0 {
		t.Fatalf("%d times a key was processed by two workers at once", v)
	}
	for k := range keys {
		if seenGen[k] != addedGen[k] {
			t.Errorf("key %d: last processing saw add #%d, but there were %d adds (an add was lost)", k, seenGen[k], addedGen[k])
		}
	}
	if n := q.Len(); n != 0 {
		t.Errorf("Len = %d after drain", n)
	}
	return processed.Load()
}

// startWorker starts a goroutine on wg that Gets keys from q, calls work and
// then Done, until q shuts down.
func startWorker[K comparable](wg *sync.WaitGroup, q *workqueue.Queue[K], work func(K)) {
	wg.Go(func() {
		for {
			k, shutdown := q.Get()
			if shutdown {
				return
			}
			work(k)
			q.Done(k)
		}
	})
}

func runtimeYield() {
	ch := make(chan struct{})
	go close(ch)
	<-ch
}

func TestShutDownHandsOutRemainingThenReportsShutdown(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false after ShutDown")
	}
	q.Add("c") // ignored
	if k := get(t, q); k != "a" {
		t.Fatalf("Get = %q, want a", k)
	}
	if k := get(t, q); k != "b" {
		t.Fatalf("Get = %q, want b", k)
	}
	if k, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get after drain = %q, shutdown=false; want shutdown", k)
	}
	q.ShutDown() // idempotent
}

func TestShutDownReleasesBlockedGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		result := make(chan bool, 1)
		go func() {
			_, shutdown := q.Get()
			result <- shutdown
		}()
		synctest.Wait()
		select {
		case <-result:
			t.Fatal("Get returned on an empty queue")
		default:
		}
		q.ShutDown()
		if !<-result {
			t.Fatal("Get after ShutDown: shutdown=false")
		}
	})
}

// TestBlockedGetWakesOnAddAndRequeue: a worker blocked in Get is woken by
// an Add, and by a Done that requeues a key re-added while it was being
// processed by another worker.
func TestBlockedGetWakesOnAddAndRequeue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		defer q.ShutDown()
		got := make(chan string)
		go func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				got <- k
			}
		}()
		synctest.Wait() // the worker is blocked in Get
		q.Add("a")
		if k := <-got; k != "a" {
			t.Fatalf("woken worker got %q, want a", k)
		}
		synctest.Wait() // blocked in Get again, "a" in flight
		q.Add("a")      // re-added while processing: nothing to hand out yet
		synctest.Wait()
		select {
		case k := <-got:
			t.Fatalf("worker got %q while a was still in flight", k)
		default:
		}
		q.Done("a") // requeues a, which must wake the blocked worker
		if k := <-got; k != "a" {
			t.Fatalf("after Done, worker got %q, want a", k)
		}
		q.Done("a")
	})
}

func TestShutDownWithDrainWaitsForQueuedAndInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		q.Add("a")
		q.Add("b")
		a := get(t, q)
		q.Add("a") // requeued by Done, must be drained too

		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()
		isOpen := func() bool {
			select {
			case <-drained:
				return false
			default:
				return true
			}
		}
		if !isOpen() {
			t.Fatal("ShutDownWithDrain returned while a was in flight")
		}
		q.Add("c") // ignored: shutting down
		q.Done(a)
		synctest.Wait()
		if !isOpen() {
			t.Fatal("ShutDownWithDrain returned while b and a were queued")
		}
		var got []string
		for range 2 {
			k := get(t, q)
			got = append(got, k)
			synctest.Wait()
			if !isOpen() {
				t.Fatalf("ShutDownWithDrain returned while %q was in flight", k)
			}
			q.Done(k)
		}
		<-drained
		if !slices.Equal(got, []string{"b", "a"}) {
			t.Fatalf("drained %v, want [b a]", got)
		}
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get after drain: want shutdown")
		}
	})
}

func TestShutDownEndsShutDownWithDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		q.Add("a")
		get(t, q) // never Done
		drained := make(chan struct{})
		go func() {
			q.ShutDownWithDrain()
			close(drained)
		}()
		synctest.Wait()
		q.ShutDown()
		<-drained
	})
}

func TestAddAfterOrderAndTiming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		start := time.Now()
		q.AddAfter("c", 3*time.Second)
		q.AddAfter("a", 1*time.Second)
		q.AddAfter("b", 2*time.Second)
		q.AddAfter("now", 0)
		q.AddAfter("neg", -time.Second)
		type got struct {
			key string
			at  time.Duration
		}
		var gots []got
		for range 5 {
			k := get(t, q)
			gots = append(gots, got{k, time.Since(start)})
			q.Done(k)
		}
		want := []got{{"now", 0}, {"neg", 0}, {"a", time.Second}, {"b", 2 * time.Second}, {"c", 3 * time.Second}}
		if !slices.Equal(gots, want) {
			t.Fatalf("got %v, want %v", gots, want)
		}
		q.ShutDown()
	})
}

func TestAddAfterEarlierDeadlineWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		defer q.ShutDown()
		start := time.Now()
		q.AddAfter("x", 10*time.Second)
		q.AddAfter("y", 5*time.Second)
		q.AddAfter("x", 2*time.Second)  // moves x earlier
		q.AddAfter("y", 20*time.Second) // later: ignored
		for _, want := range []struct {
			key string
			at  time.Duration
		}{{"x", 2 * time.Second}, {"y", 5 * time.Second}} {
			k := get(t, q)
			if k != want.key || time.Since(start) != want.at {
				t.Fatalf("Get = %q at %v, want %q at %v", k, time.Since(start), want.key, want.at)
			}
			q.Done(k)
		}
		// Nothing else: x's 10s deadline was replaced, not duplicated.
		time.Sleep(30 * time.Second)
		if n := q.Len(); n != 0 {
			t.Fatalf("Len = %d after all deadlines, want 0", n)
		}
	})
}

func TestAddAfterOfQueuedKeyIsDeduplicated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		defer q.ShutDown()
		q.Add("a")
		q.AddAfter("a", time.Second)
		time.Sleep(time.Second)
		synctest.Wait()
		if n := q.Len(); n != 1 {
			t.Fatalf("Len = %d, want 1", n)
		}
	})
}

func TestShutDownDropsDelayedAndStopsTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{})
		q.AddAfter("a", time.Hour)
		q.ShutDown() // must stop the delay goroutine (goleak and synctest check)
		q.AddAfter("b", time.Second)
		time.Sleep(2 * time.Hour)
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("delayed key delivered after ShutDown")
		}
	})
}

func TestAddRateLimitedForgetNumRequeues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{
			RateLimiter: workqueue.NewExponentialRateLimiter[string](time.Second, time.Minute),
		})
		defer q.ShutDown()
		start := time.Now()
		q.AddRateLimited("a") // 1s
		k := get(t, q)
		if d := time.Since(start); k != "a" || d != time.Second {
			t.Fatalf("Get = %q after %v, want a after 1s", k, d)
		}
		q.Done(k)
		q.AddRateLimited("a") // 2s
		get(t, q)
		if d := time.Since(start); d != 3*time.Second {
			t.Fatalf("second retry after %v, want 3s", d)
		}
		q.Done("a")
		if n := q.NumRequeues("a"); n != 2 {
			t.Fatalf("NumRequeues = %d, want 2", n)
		}
		q.Forget("a")
		if n := q.NumRequeues("a"); n != 0 {
			t.Fatalf("NumRequeues after Forget = %d, want 0", n)
		}
	})
}

// TestConcurrentDelayedAddsAllArrive races AddAfter, Add and
// AddRateLimited from several goroutines against workers, in fake time, and
// checks every key arrives and none is held by two workers.
func TestConcurrentDelayedAddsAllArrive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const keys, producers = 200, 4
		q := workqueue.New(workqueue.Options[int]{
			RateLimiter: workqueue.NewExponentialRateLimiter[int](time.Millisecond, time.Second),
		})
		var mu sync.Mutex
		seen := map[int]int{}
		var inFlight [keys]atomic.Int32
		var violations atomic.Int32
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					k, shutdown := q.Get()
					if shutdown {
						return
					}
					if inFlight[k].Add(1) != 1 {
						violations.Add(1)
					}
					time.Sleep(time.Millisecond) // work takes (fake) time
					mu.Lock()
					seen[k]++
					mu.Unlock()
					inFlight[k].Add(-1)
					q.Done(k)
				}
			})
		}
		var pwg sync.WaitGroup
		for p := range producers {
			pwg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(p), 2))
				for k := p; k < keys; k += producers {
					switch r.IntN(3) {
					case 0:
						q.Add(k)
					case 1:
						q.AddAfter(k, time.Duration(r.IntN(1000))*time.Millisecond)
					case 2:
						q.AddRateLimited(k)
					}
				}
			})
		}
		pwg.Wait()
		time.Sleep(2 * time.Second) // past every deadline
		synctest.Wait()
		q.ShutDownWithDrain()
		wg.Wait()
		if v := violations.Load(); v != 0 {
			t.Fatalf("%d double processings", v)
		}
		for k := range keys {
			if seen[k] != 1 {
				t.Errorf("key %d processed %d times, want 1", k, seen[k])
			}
		}
	})
}
