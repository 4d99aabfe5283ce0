package bench_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// BenchmarkInformerSlowHandlerBacklog reports what a handler's pending
// notification costs (B/pending) when the handler lags behind a 100k
// initial sync: the same informer is synced twice over fresh copies of the
// 100k small ConfigMaps (the source of BenchmarkInformerInitialSync), once
// without a handler and once with a handler blocked in its first call until
// the cache has synced — the limit of a handler taking 1 ms per event, which
// has delivered a few hundred of the 100k when an in-memory sync ends — and
// B/pending is the difference of the two live heaps (after full
// collections) divided by the notifications pending. It counts whatever the
// backlog costs, boxed notifications and buffer growth included; the
// objects are the cache's in both runs. (A baseline with a handler that
// keeps up would hide part of client-go's: its no-op handler lags tens of
// thousands of notifications behind during the sync, and its ring buffer
// keeps the capacity it grew to.) ns/op is the time of both runs and means
// little. In memory, no server, no decoding:
//
//	go test ./bench -run '^$' -bench 'BenchmarkInformerSlowHandlerBacklog' -benchmem -count 3 | go run ./hack/benchratio
func BenchmarkInformerSlowHandlerBacklog(b *testing.B) {
	cms := informerConfigMaps()
	n := len(cms)
	b.Run(fmt.Sprintf("configmaps=%d/impl=ours", n), func(b *testing.B) {
		var per float64
		for b.Loop() {
			none := oursBacklogHeap(b, cms, false)
			lagging := oursBacklogHeap(b, cms, true)
			per = float64(int64(lagging)-int64(none)) / float64(n)
		}
		b.ReportMetric(per, "B/pending")
	})
	b.Run(fmt.Sprintf("configmaps=%d/impl=client-go", n), func(b *testing.B) {
		var per float64
		for b.Loop() {
			none := clientGoBacklogHeap(b, cms, false)
			lagging := clientGoBacklogHeap(b, cms, true)
			per = float64(int64(lagging)-int64(none)) / float64(n)
		}
		b.ReportMetric(per, "B/pending")
	})
}

// oursBacklogHeap syncs our informer over fresh copies of tmpl and returns
// the live heap once its cache has synced: with a handler blocked in its
// first call if lag (every other add pending), else without a handler.
func oursBacklogHeap(b *testing.B, tmpl []*corev1.ConfigMap, lag bool) uint64 {
	b.Helper()
	src := &ourSource[*corev1.ConfigMap]{items: freshObjs(tmpl), w: watch.NewFake()}
	inf := newOurs(src, informer.Options[*corev1.ConfigMap]{
		Indexers:  store.Indexers[*corev1.ConfigMap]{"app": informerCMAppOurs},
		Reflector: reflector.Options{Name: "bench", PageSize: informerPageSize, WatchList: &informerNoWatchList},
	})
	gate := make(chan struct{})
	var calls atomic.Int64
	var reg *informer.Registration
	if lag {
		var err error
		reg, err = inf.AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(*corev1.ConfigMap, bool) {
			if calls.Add(1) == 1 {
				<-gate
			}
		}}, informer.HandlerOptions{})
		if err != nil {
			b.Fatal(err)
		}
	}
	stop := startOurs(inf, src.w)
	if err := informer.WaitForCacheSync(context.Background(), inf); err != nil {
		b.Fatal(err)
	}
	heap := informerLiveHeap()
	if lag {
		if reg.HasSynced() || calls.Load() != 1 {
			b.Fatalf("ours: handler synced %v after %d calls; want it stuck in its first", reg.HasSynced(), calls.Load())
		}
		close(gate)
		waitOurs(b, reg)
	}
	if err := stop(); err != nil {
		b.Fatal(err)
	}
	src.check(b, "ours", len(tmpl))
	runtime.KeepAlive(src.items)
	return heap
}

// clientGoBacklogHeap is oursBacklogHeap for client-go's shared informer.
func clientGoBacklogHeap(b *testing.B, tmpl []*corev1.ConfigMap, lag bool) uint64 {
	b.Helper()
	var pages atomic.Pointer[[]corev1.ConfigMap]
	pages.Store(benchPtr(freshConfigMapValues(tmpl)))
	w := watch.NewFake()
	src := newCGSource(len(tmpl), func(from, to int, next string) kruntime.Object {
		return configMapPages(*pages.Load())(from, to, next)
	}, w)
	inf := cache.NewSharedIndexInformerWithOptions(src, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{Indexers: cmIndexersCG()})
	gate := make(chan struct{})
	var calls atomic.Int64
	var reg cache.ResourceEventHandlerRegistration
	if lag {
		var err error
		reg, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) {
			if calls.Add(1) == 1 {
				<-gate
			}
		}})
		if err != nil {
			b.Fatal(err)
		}
	}
	stop := startClientGo(inf, w)
	if !cache.WaitForCacheSync(context.Background().Done(), inf.HasSynced) {
		b.Fatal("client-go: informer did not sync")
	}
	pages.Store(nil) // the cache holds shallow copies of the page items
	heap := informerLiveHeap()
	if lag {
		if reg.HasSynced() || calls.Load() != 1 {
			b.Fatalf("client-go: handler synced %v after %d calls; want it stuck in its first", reg.HasSynced(), calls.Load())
		}
		close(gate)
		waitClientGo(b, reg)
	}
	stop()
	src.check(b, "client-go", len(tmpl))
	return heap
}
