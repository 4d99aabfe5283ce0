package workqueue_test

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

func getP[K comparable](t *testing.T, q *workqueue.Queue[K]) (K, int) {
	t.Helper()
	k, p, shutdown := q.GetWithPriority()
	if shutdown {
		t.Fatalf("GetWithPriority: unexpected shutdown")
	}
	return k, p
}

func addP[K comparable](q *workqueue.Queue[K], prio int, keys ...K) {
	q.AddWithOpts(workqueue.AddOpts{Priority: prio}, keys...)
}

// TestPriorityHighestFirstFIFOWithin: keys come out by priority, and in
// the order they were added within one priority.
func TestPriorityHighestFirstFIFOWithin(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	defer q.ShutDown()
	addP(q, workqueue.LowPriority, "l1", "l2")
	q.Add("n1")
	addP(q, 10, "h1")
	q.Add("n2")
	addP(q, 10, "h2")
	want := []struct {
		key  string
		prio int
	}{{"h1", 10}, {"h2", 10}, {"n1", 0}, {"n2", 0}, {"l1", workqueue.LowPriority}, {"l2", workqueue.LowPriority}}
	if n := q.Len(); n != len(want) {
		t.Fatalf("Len = %d, want %d", n, len(want))
	}
	for _, w := range want {
		k, p := getP(t, q)
		if k != w.key || p != w.prio {
			t.Fatalf("got %s at %d, want %s at %d", k, p, w.key, w.prio)
		}
		q.Done(k)
	}
}

// TestPriorityHighestWinsWhileWaiting: a waiting key added again at a
// higher priority moves there (to the end of that priority's keys) and is
// handed out once; added at a lower priority, it stays.
func TestPriorityHighestWinsWhileWaiting(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	defer q.ShutDown()
	addP(q, workqueue.LowPriority, "a", "b", "c")
	addP(q, 5, "x")
	addP(q, 5, "b")                     // moves b up, behind x
	addP(q, workqueue.LowPriority, "x") // stays at 5
	q.Add("x")                          // stays at 5
	if n := q.Len(); n != 4 {
		t.Fatalf("Len = %d, want 4 (a moved key counts once)", n)
	}
	var got []string
	for range 4 {
		k, p := getP(t, q)
		got = append(got, k)
		if (k == "x" || k == "b") != (p == 5) {
			t.Errorf("%s handed out at priority %d", k, p)
		}
		q.Done(k)
	}
	if want := []string{"x", "b", "a", "c"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if n := q.Len(); n != 0 {
		t.Fatalf("Len = %d after all were handed out", n)
	}
}

// TestPriorityReAddWhileProcessing: a key re-added while processed is
// queued again at Done at the highest priority it was re-added with.
func TestPriorityReAddWhileProcessing(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	defer q.ShutDown()
	addP(q, workqueue.LowPriority, "a")
	a, _ := getP(t, q)
	addP(q, workqueue.LowPriority, a)
	addP(q, 3, a)
	addP(q, workqueue.LowPriority, a)
	q.Add("b")
	q.Done(a)
	if k, p := getP(t, q); k != "a" || p != 3 {
		t.Fatalf("got %s at %d, want a at 3", k, p)
	}
	q.Done("a")
	if k, p := getP(t, q); k != "b" || p != 0 {
		t.Fatalf("got %s at %d, want b at 0", k, p)
	}
	q.Done("b")
}

// TestPriorityDelayedKeepsPriority: AddWithOpts with After or RateLimited
// queues the key at its priority when the delay ends; a key delayed twice
// gets the earlier deadline and the higher priority.
func TestPriorityDelayedKeepsPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{
			RateLimiter: workqueue.NewExponentialRateLimiter[string](time.Second, time.Minute),
		})
		defer q.ShutDown()
		q.AddWithOpts(workqueue.AddOpts{After: 2 * time.Second, Priority: 4}, "d")
		q.AddWithOpts(workqueue.AddOpts{After: time.Second, Priority: workqueue.LowPriority}, "d") // earlier, lower
		q.AddWithOpts(workqueue.AddOpts{RateLimited: true, Priority: 9}, "r")                      // 1s
		q.Add("n")
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		want := []struct {
			key  string
			prio int
		}{{"r", 9}, {"d", 4}, {"n", 0}}
		for _, w := range want {
			k, p := getP(t, q)
			if k != w.key || p != w.prio {
				t.Fatalf("got %s at %d, want %s at %d", k, p, w.key, w.prio)
			}
			q.Done(k)
		}
		if n := q.NumRequeues("r"); n != 1 {
			t.Fatalf("NumRequeues(r) = %d, want 1", n)
		}
	})
}

// TestPriorityLowNeverStarves: with a steady supply of high-priority keys,
// a low-priority key is handed out after at most StarvationLimit of them.
func TestPriorityLowNeverStarves(t *testing.T) {
	for _, limit := range []int{1, 3, 16 /* the default */} {
		q := workqueue.New(workqueue.Options[int]{StarvationLimit: limit})
		addP(q, workqueue.LowPriority, -1, -2)
		addP(q, 0, -3)
		next := 0
		for range limit + 2 {
			addP(q, 10, next)
			next++
		}
		// Every Get is followed by another high-priority add: the top lane
		// never runs dry.
		var lows []int
		var sinceLow int
		for range 3*(limit+1) + 3 {
			k, _ := getP(t, q)
			q.Done(k)
			addP(q, 10, next)
			next++
			if k < 0 {
				lows = append(lows, k)
				sinceLow = 0
				continue
			}
			sinceLow++
			if sinceLow > limit && len(lows) < 3 {
				t.Fatalf("limit %d: %d high keys in a row while low keys waited (got %v so far)", limit, sinceLow, lows)
			}
		}
		if len(lows) != 3 {
			t.Fatalf("limit %d: low keys handed out %v, want all three", limit, lows)
		}
		// -3 (priority 0) and the priority -100 keys were each passed over
		// at most limit times: the middle lane is not starved by the low one.
		if lows[0] != -3 && lows[1] != -3 {
			t.Errorf("limit %d: priority 0 key came out at position %d of %v", limit, slices.Index(lows, -3), lows)
		}
		q.ShutDown()
	}
}

// TestPriorityQueueMatchesModel runs random single-goroutine sequences of
// AddWithOpts (random priorities), Get and Done against a model with strict
// priority order (StarvationLimit too large to matter): dedup, highest
// priority wins, FIFO within a priority, re-adds requeued at Done at their
// highest priority, Len.
func TestPriorityQueueMatchesModel(t *testing.T) {
	prios := []int{workqueue.LowPriority, -1, 0, 2, 50}
	type entry struct {
		key, prio int
		seq       int
	}
	rng := rand.New(rand.NewPCG(5, 6))
	q := workqueue.New(workqueue.Options[int]{StarvationLimit: 1 << 30})
	defer q.ShutDown()
	queued := map[int]entry{}
	processing := map[int]bool{}
	again := map[int]int{} // key -> priority
	seq := 0
	push := func(k, p int) {
		queued[k] = entry{k, p, seq}
		seq++
	}
	for step := range 50_000 {
		switch op := rng.IntN(10); {
		case op < 5:
			k := rng.IntN(300)
			p := prios[rng.IntN(len(prios))]
			addP(q, p, k)
			if processing[k] {
				if old, ok := again[k]; !ok || p > old {
					again[k] = p
				}
			} else if e, ok := queued[k]; !ok || p > e.prio {
				push(k, p)
			}
		case op < 8 && len(queued) > 0:
			var best entry
			first := true
			for _, e := range queued {
				if first || e.prio > best.prio || e.prio == best.prio && e.seq < best.seq {
					best, first = e, false
				}
			}
			k, p, shutdown := q.GetWithPriority()
			if shutdown || k != best.key || p != best.prio {
				t.Fatalf("step %d: Get = %d at %d (%v); want %d at %d", step, k, p, shutdown, best.key, best.prio)
			}
			delete(queued, k)
			processing[k] = true
		case len(processing) > 0:
			var k int
			for k = range processing {
				break
			}
			q.Done(k)
			delete(processing, k)
			if p, ok := again[k]; ok {
				delete(again, k)
				push(k, p)
			}
		}
		if step%89 == 0 && q.Len() != len(queued) {
			t.Fatalf("step %d: Len = %d, want %d", step, q.Len(), len(queued))
		}
	}
}

// TestPriorityShutDownWithDrain: ShutDownWithDrain waits for keys at every
// priority, including keys that moved, and Get hands them all out.
func TestPriorityShutDownWithDrain(t *testing.T) {
	q := workqueue.New(workqueue.Options[int]{})
	for k := range 300 {
		addP(q, workqueue.LowPriority, k)
	}
	for k := 0; k < 300; k += 3 {
		addP(q, 1, k) // moves a third of them
	}
	var mu sync.Mutex
	seen := map[int]int{}
	var wg sync.WaitGroup
	for range 4 {
		startWorker(&wg, q, func(k int) {
			mu.Lock()
			seen[k]++
			mu.Unlock()
		})
	}
	q.ShutDownWithDrain()
	wg.Wait()
	if len(seen) != 300 {
		t.Fatalf("%d keys processed, want 300", len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("key %d processed %d times", k, n)
		}
	}
}
