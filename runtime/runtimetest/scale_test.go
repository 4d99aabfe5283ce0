package runtimetest_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// liveHeap returns the live heap after full collections.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// smallCM is object i of a large population: a ConfigMap with only a
// namespace and a name, so that what a Source or an informer keeps beside
// the objects shows.
func smallCM(i int) obj {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns-" + strconv.Itoa(i%100), Name: "cm-" + strconv.Itoa(i)}}
}

func smallCMs(n int) []obj {
	objs := make([]obj, n)
	for i := range objs {
		objs[i] = smallCM(i)
	}
	return objs
}

// readN reads n events from w, keeping none of them, and fails unless they
// are of type typ.
func readN(t *testing.T, w watch.Interface, n int, typ watch.EventType) {
	t.Helper()
	for i := range n {
		ev, ok := <-w.ResultChan()
		if !ok || ev.Type != typ {
			t.Fatalf("event %d of %d: %v (open %v), want %s", i, n, ev.Type, ok, typ)
		}
	}
}

// maxRetainedPerEvent bounds what a Source keeps per event it has served
// and its reader has dropped: nothing but the objects it stores, and a
// bounded event log (SourceOptions.EventLogSize) of pointers to them.
const maxRetainedPerEvent = 2.0

// A Source releases what its watches have served: once a reader has
// received a WatchList's initial events, or a burst of live events, and
// dropped them, the Source holds no more than it did before the watch
// (bar the event log, which is bounded), even while the watch stays open.
// The initial events of a WatchList of n objects used to stay in the
// watch's drained queue, 32 bytes an event.
func TestSourceReleasesServedEvents(t *testing.T) {
	const n = 50_000
	// An event log of one event: the log keeps the objects of the last
	// EventLogSize events (and the states they replaced) by design.
	src := runtimetest.NewSource(runtimetest.SourceOptions{EventLogSize: 1}, smallCMs(n)...)
	before := liveHeap()

	yes := true
	w := must(src.Watch(t.Context(), metav1.ListOptions{SendInitialEvents: &yes, AllowWatchBookmarks: true, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}))
	defer w.Stop()
	readN(t, w, n, watch.Added)
	readN(t, w, 1, watch.Bookmark)
	afterInitial := liveHeap()
	perEvent := float64(afterInitial-before) / n
	t.Logf("after %d initial events: %.1f bytes retained per event", n, perEvent)
	if perEvent > maxRetainedPerEvent {
		t.Errorf("the Source retains %.1f bytes per initial event served, want at most %.0f", perEvent, maxRetainedPerEvent)
	}

	// A burst of updates queued while the reader does not read. Each
	// replaces a stored object by one of the same size: their
	// resourceVersions have six digits before (the updates of the source
	// below) as after the burst.
	update := func() {
		for i := range n {
			must(src.Update(smallCM(i)))
		}
	}
	w.Stop()
	update()
	update() // resourceVersions 100001 to 150000
	before = liveHeap()
	w = must(src.Watch(t.Context(), metav1.ListOptions{ResourceVersion: src.ResourceVersion()}))
	defer w.Stop()
	update()
	readN(t, w, n, watch.Modified)
	afterBurst := liveHeap()
	perEvent = float64(afterBurst-before) / n
	t.Logf("after %d more live events: %.1f bytes retained per event", n, perEvent)
	if perEvent > maxRetainedPerEvent {
		t.Errorf("the Source retains %.1f bytes per live event served, want at most %.0f", perEvent, maxRetainedPerEvent)
	}
	runtime.KeepAlive(src)
}

// copying serves objs as an API server would and keeps nothing else: every
// item of its one LIST is a fresh copy (its own objects stay, as a server's
// storage does); its watch sends nothing.
type copying struct {
	objs []obj
}

func (c *copying) List(context.Context, metav1.ListOptions) (*reflector.ListResult[obj], error) {
	items := make([]obj, len(c.objs))
	for i, o := range c.objs {
		items[i] = o.DeepCopy()
		items[i].ResourceVersion = "1"
	}
	return &reflector.ListResult[obj]{Items: items, ResourceVersion: "1"}, nil
}

func (c *copying) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return watch.NewFake(), nil
}

// syncedHeap runs an informer of lw until it has synced and returns the live
// heap then, while it runs (its watch open).
func syncedHeap(t *testing.T, lw reflector.ListerWatcher[obj], opts reflector.Options) (heap int64, cached int) {
	t.Helper()
	opts.Name = "configmaps"
	inf := informer.New(lw, informer.Options[obj]{Reflector: opts})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	wait, stop := context.WithTimeout(ctx, 5*time.Minute)
	defer stop()
	if err := informer.WaitForCacheSync(wait, inf); err != nil {
		t.Fatal(err)
	}
	return liveHeap(), inf.Indexer().Len()
}

// A user's test at scale through a Source measures the informer, not the
// Source: an informer synced over a Source of a million objects (by
// WatchList, as informers sync by default) holds, beyond what the Source
// itself stores, what the same informer holds over a source that keeps
// nothing but its objects, within maxRetainedPerEvent per object. Under the
// race detector (CI) or -short it runs at 100,000 objects.
func TestSourceAtScaleMeasuresTheInformer(t *testing.T) {
	n := 1_000_000
	if raceEnabled || testing.Short() {
		n = 100_000
	}
	objs := smallCMs(n)

	// The reference: a source that keeps its objects and nothing else.
	ref := &copying{objs: objs}
	refBase := liveHeap()
	noWatchList := false
	refHeap, refCached := syncedHeap(t, ref, reflector.Options{WatchList: &noWatchList})
	informerOnly := refHeap - refBase

	src := runtimetest.NewSource(runtimetest.SourceOptions{}, objs...)
	ref, objs = nil, nil
	srcBase := liveHeap() // the Source's storage: the objects, the event log
	srcHeap, srcCached := syncedHeap(t, src, reflector.Options{})
	overSource := srcHeap - srcBase
	runtime.KeepAlive(src)

	if refCached != n || srcCached != n {
		t.Fatalf("cached %d objects over the reference, %d over the Source; want %d", refCached, srcCached, n)
	}
	wl, l := 0, 0
	for _, r := range src.Requests() {
		if r.Options.SendInitialEvents != nil && *r.Options.SendInitialEvents {
			wl++
		} else if r.Verb == "list" {
			l++
		}
	}
	if wl != 1 || l != 0 {
		t.Fatalf("the informer made %d WatchList and %d LIST requests of the Source; want one WatchList", wl, l)
	}
	extra := float64(overSource-informerOnly) / float64(n)
	t.Logf("%d objects: the informer holds %.1f bytes per object over a bare source, %.1f over the Source (%+.1f)",
		n, float64(informerOnly)/float64(n), float64(overSource)/float64(n), extra)
	if extra > maxRetainedPerEvent {
		t.Errorf("an informer synced over the Source holds %.1f bytes per object more than over a bare source: the Source keeps what it served", extra)
	}
}
