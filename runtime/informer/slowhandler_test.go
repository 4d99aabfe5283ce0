package informer_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// listThenWatch is a source that lists items (at resourceVersion 1) and then
// serves one watch, w, whose events the test sends. Unlike runtimetest's fake
// it keeps nothing but what it is given.
type listThenWatch struct {
	items []CM
	w     *watch.FakeWatcher
}

func (s *listThenWatch) List(context.Context, metav1.ListOptions) (*reflector.ListResult[CM], error) {
	items := s.items
	s.items = nil // the informer's from now on
	return &reflector.ListResult[CM]{Items: items, ResourceVersion: "1"}, nil
}

func (s *listThenWatch) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return s.w, nil
}

func newListThenWatch(n int) *listThenWatch {
	items := make([]CM, n)
	for i := range items {
		items[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm-" + strconv.Itoa(i), ResourceVersion: "1"}}
	}
	return &listThenWatch{items: items, w: watch.NewFakeWithChanSize(16, false)}
}

var noWatchList = false

// liveHeap returns the live heap after full collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// maxBytesPerPending bounds what a handler's pending notification holds: a
// 24-byte note pointing to the object the cache holds (no copy), plus the
// slack of the buffer it sits in. A notification that copied its object
// (a ConfigMap is ~300 bytes) or boxed it in an interface of its own (as
// client-go's do: 40 bytes and more) would exceed it.
const maxBytesPerPending = 32

// A handler taking 1 ms per event during a 100k-object initial sync lags
// behind the whole list: the informer's cache syncs, and the handler's
// backlog (reported by Registration.Backlog, hence the
// informergen_handler_backlog metric) holds every notification not yet
// delivered at at most maxBytesPerPending bytes each, measured as the live
// heap it gives back once drained. Time is synctest's: the 100 s of handler
// calls take no wall-clock time, and nothing here depends on it.
func TestSlowHandlerInitialSyncBacklogMemory(t *testing.T) {
	const n = 100_000
	synctest.Test(t, func(t *testing.T) {
		src := newListThenWatch(n)
		inf := informer.New[CM](src, informer.Options[CM]{
			Metrics:   &countMetrics{n: map[string]int{}},
			Reflector: reflector.Options{Name: "configmaps.v1", WatchList: &noWatchList},
		})
		var returned atomic.Int64
		var fast atomic.Bool
		reg := must(inf.AddHandler(informer.HandlerFuncs[CM]{
			AddFunc: func(CM, bool) {
				if !fast.Load() {
					time.Sleep(time.Millisecond)
				}
				returned.Add(1)
			},
		}, informer.HandlerOptions{}))
		run(t, inf)
		// The informer syncs its cache while the handler is still in its
		// first call (synctest's clock has not moved: every other
		// goroutine is idle).
		synctest.Wait()
		if !inf.HasSynced() || inf.Indexer().Len() != n {
			t.Fatalf("informer synced %v with %d objects; want true, %d", inf.HasSynced(), inf.Indexer().Len(), n)
		}
		pending, oldest := reg.Backlog()
		// Every add not yet returned (the one in progress included), and the
		// handler's synced marker.
		if want := n - int(returned.Load()) + 1; pending != want || pending < n/2 || oldest.IsZero() {
			t.Fatalf("Backlog() = %d, oldest %v; want %d (the adds not delivered and the synced marker)", pending, oldest, want)
		}
		if reg.HasSynced() {
			t.Fatal("handler synced with its backlog pending")
		}
		withBacklog := liveHeap()

		fast.Store(true) // the rest without the clock: the measure is done
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if left, _ := reg.Backlog(); left != 0 || !reg.HasSynced() || returned.Load() != n {
			t.Fatalf("after draining: Backlog() = %d, handler synced %v, %d adds returned; want 0, true, %d", left, reg.HasSynced(), returned.Load(), n)
		}
		drained := liveHeap()
		perPending := float64(int64(withBacklog)-int64(drained)) / float64(pending)
		t.Logf("%d notifications pending: %.1f bytes each (live heap %d with them, %d drained)", pending, perPending, withBacklog, drained)
		if perPending > maxBytesPerPending {
			t.Errorf("a pending notification holds %.1f bytes, want at most %d: notes must point to the cached objects, not copy them", perPending, maxBytesPerPending)
		}
		runtime.KeepAlive(inf)
	})
}

// A batch of notifications can take minutes to deliver to a slow handler;
// what its delivered notes pointed to (an update's previous object, a
// deleted object) is released as they are delivered, not when the batch
// ends.
func TestSlowHandlerReleasesDeliveredObjects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newListThenWatch(1)
		inf := informer.New[CM](src, informer.Options[CM]{
			Reflector: reflector.Options{Name: "configmaps.v1", WatchList: &noWatchList},
		})
		first, last := make(chan struct{}), make(chan struct{})
		var previous, deleted weak.Pointer[corev1.ConfigMap]
		var updated, gone atomic.Bool
		reg := must(inf.AddHandler(informer.HandlerFuncs[CM]{
			AddFunc: func(o CM, initial bool) {
				switch {
				case initial:
					<-first // the informer queues the events below meanwhile
				case o.Name == "last":
					<-last
				}
			},
			UpdateFunc: func(old, _ CM) { previous = weak.Make(old); updated.Store(true) },
			DeleteFunc: func(o CM, _ bool) { deleted = weak.Make(o); gone.Store(true) },
		}, informer.HandlerOptions{}))
		run(t, inf)
		synctest.Wait()
		// One batch for the handler: an update of cm-0 (its previous object
		// cached nowhere any more), an add and a delete of "gone", then
		// an add it blocks on.
		src.w.Modify(withData(cachedCopy(inf, "ns/cm-0"), "2"))
		src.w.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gone", ResourceVersion: "3"}})
		src.w.Delete(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gone", ResourceVersion: "4"}})
		src.w.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "last", ResourceVersion: "5"}})
		synctest.Wait()
		if got := inf.Indexer().Len(); got != 2 {
			t.Fatalf("cache holds %d objects, want 2 (cm-0, last)", got)
		}
		close(first)
		synctest.Wait() // blocked on "last", in the same batch
		if !updated.Load() || !gone.Load() {
			t.Fatalf("update delivered %v, delete delivered %v; want both", updated.Load(), gone.Load())
		}
		runtime.GC()
		runtime.GC()
		if previous.Value() != nil {
			t.Error("the previous object of a delivered update is still held while its batch is delivered")
		}
		if deleted.Value() != nil {
			t.Error("a deleted object whose notification was delivered is still held while its batch is delivered")
		}
		close(last)
		waitSynced(t, reg)
	})
}

// cachedCopy returns a copy of the object cached under key, to modify.
func cachedCopy(inf *informer.Informer[CM], key string) CM {
	o, ok := inf.Indexer().Get(key)
	if !ok {
		panic(fmt.Sprintf("%s not cached: %d objects", key, inf.Indexer().Len()))
	}
	return o.DeepCopy()
}

func withData(o CM, v string) CM {
	o.ResourceVersion = v
	o.Data = map[string]string{"v": v}
	return o
}
