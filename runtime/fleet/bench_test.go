package fleet_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// liveHeap is the heap in use after two GCs (the second frees what the
// first's finalizers released).
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkClusterFixedCost measures what one engaged cluster costs beyond
// its objects: 100 clusters with one Widget informer each, a Watch with
// Enqueue on it, and no objects; heap and goroutines after all synced,
// minus before, per cluster. Then every cluster is disengaged, and the
// heap after GC is reported as a share of the heap before they were
// engaged (1.00: all returned).
//
// In memory: each cluster's source is a runtimetest.Source (created before
// the baseline, so not counted), so this is the fleet, factory and
// informer's own cost: no HTTP client, REST client, scheme or connection,
// which a cluster reached over REST adds (BenchmarkClusterFixedCostREST).
//
//	go test -run '^$' -bench 'BenchmarkClusterFixedCost' -benchtime 3x ./runtime/fleet/
func BenchmarkClusterFixedCost(b *testing.B) {
	benchFixedCost(b, func(int) fleet.Endpoint {
		return over(newSource())
	})
}

// BenchmarkClusterFixedCostREST is BenchmarkClusterFixedCost with every
// cluster reached over HTTP (its own rest.Config, hence its own HTTP
// client, REST client and scheme) from one in-process listwatchtest
// server. The server's per-connection state is in the same heap, so the
// figure is an upper bound of the client's cost, and heap-after/before
// above 1 is the server's: a heap profile of repeated rounds (engage 100,
// sync, disengage 100) shows what stays to be the server's connections
// (net/http.(*conn).serve and its buffers, listwatchtest.Server.serve),
// nothing of the client's.
func BenchmarkClusterFixedCostREST(b *testing.B) {
	srv := lwt.NewServer(b)
	benchFixedCost(b, func(int) fleet.Endpoint {
		return fleet.Endpoint{Config: srv.Config()}
	})
}

func benchFixedCost(b *testing.B, endpoint func(n int) fleet.Endpoint) {
	const clusters = 100
	for b.Loop() {
		q := workqueue.New(workqueue.Options[fleet.Key]{})
		fl := newFleet(q)
		eps := make([]fleet.Endpoint, clusters)
		for n := range eps {
			eps[n] = endpoint(n)
		}
		ctx, cancel := context.WithCancel(b.Context())
		done := make(chan error, 1)
		go func() { done <- fl.Run(ctx) }()

		heap0, g0 := liveHeap(), runtime.NumGoroutine()
		for n, ep := range eps {
			if err := fl.Engage(fmt.Sprintf("c%03d", n), ep); err != nil {
				b.Fatal(err)
			}
		}
		if err := fl.WaitForCacheSync(ctx); err != nil {
			b.Fatal(err)
		}
		heap1, g1 := liveHeap(), runtime.NumGoroutine()
		for n := range eps {
			fl.Disengage(fmt.Sprintf("c%03d", n))
		}
		heap2 := liveHeap()
		b.ReportMetric(float64(int64(heap1)-int64(heap0))/clusters, "heap-B/cluster")
		b.ReportMetric(float64(g1-g0)/clusters, "goroutines/cluster")
		b.ReportMetric(float64(heap2)/float64(heap0), "heap-after/before")
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		q.ShutDown()
	}
}
