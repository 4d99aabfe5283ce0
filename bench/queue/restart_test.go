package queue_test

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkRestart is a controller restarting with 50,000 objects: every
// object's initial add is queued at once (at low priority where the queue has
// priorities, as the informer handler helpers do), 4 workers reconcile them
// at about 1 ms each (a sleep: a reconcile mostly waits on the API server),
// and 100 user edits of random objects arrive spread over the drain (at
// normal priority). It reports, per queue, the time from each edit to the
// start of the first reconcile of its key that began after it (p50, p99,
// max) and the time until every initial key and every edit was reconciled
// (drain-s). One iteration takes the drain time (~13 s); run with
// -benchtime=1x:
//
//	cd bench/queue && go test -run '^$' -bench 'BenchmarkRestart$' -benchtime=1x -count 3 .
func BenchmarkRestart(b *testing.B) {
	for _, c := range []contender{oursPriority, oursFIFOQ, clientGoQ, crPriorityQ} {
		b.Run("queue="+c.name, func(b *testing.B) {
			for range b.N {
				benchRestart(b, c, 50_000, 100, 4, time.Millisecond)
			}
		})
	}
}

func benchRestart(b *testing.B, c contender, objects, edits, workers int, reconcile time.Duration) {
	ks := keys(objects)
	q := c.new()
	var mu sync.Mutex
	editedAt := map[string]time.Time{} // edits not yet reconciled
	var latencies []time.Duration
	seen := make(map[string]bool, objects)
	allDone := make(chan struct{})
	editsDone := false
	start := time.Now()
	var drain time.Duration
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				now := time.Now()
				mu.Lock()
				if t, ok := editedAt[k]; ok {
					latencies = append(latencies, now.Sub(t))
					delete(editedAt, k)
				}
				if !seen[k] {
					seen[k] = true
				}
				if drain == 0 && editsDone && len(seen) == objects && len(editedAt) == 0 {
					drain = now.Sub(start)
					close(allDone)
				}
				mu.Unlock()
				time.Sleep(reconcile)
				q.Forget(k)
				q.Done(k)
			}
		})
	}
	for _, k := range ks {
		q.AddLow(k)
	}
	// Edits spread over the drain: the i-th once i/(edits+1) of the
	// initial keys were reconciled (a loaded machine stretches the drain).
	r := rand.New(rand.NewPCG(1, 2))
	for i := range edits {
		for {
			mu.Lock()
			n := len(seen)
			mu.Unlock()
			if n >= (i+1)*objects/(edits+1) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		k := ks[r.IntN(objects)]
		mu.Lock()
		if _, ok := editedAt[k]; !ok {
			editedAt[k] = time.Now()
		}
		mu.Unlock()
		q.Add(k)
	}
	mu.Lock()
	editsDone = true
	if drain == 0 && len(seen) == objects && len(editedAt) == 0 {
		drain = time.Since(start)
		close(allDone)
	}
	mu.Unlock()
	<-allDone
	q.ShutDown()
	wg.Wait()
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		if len(latencies) == 0 {
			return 0
		}
		return float64(latencies[min(len(latencies)-1, int(p*float64(len(latencies))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.5), "edit-p50-ms")
	b.ReportMetric(pct(0.99), "edit-p99-ms")
	b.ReportMetric(pct(1), "edit-max-ms")
	b.ReportMetric(drain.Seconds(), "drain-s")
	b.ReportMetric(float64(len(latencies)), "edits")
}
