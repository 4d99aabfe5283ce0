package bench_test

import (
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// End-to-end informer benchmarks: our informer, built by informer.New over a
// typed reflector.ListerWatcher, against client-go v0.37.2's
// cache.NewSharedIndexInformerWithOptions over a cache.ListWatch, on the same
// in-memory source:
//
//   - a LIST served in pages of 500 (both reflectors ask for limit=500 and
//     follow the continue tokens; every run checks the page count), at
//     resourceVersion "1", with remainingItemCount on ours as an API server
//     sends it (client-go's Reflector does not read it);
//   - one watch channel (watch.FakeWatcher) for the events.
//
// Both list then watch: ours with reflector.Options.WatchList=false, client-go
// because the ListWatch reports IsWatchListSemanticsUnSupported (its
// WatchListClient gate is on by default since 1.35, so without that it would
// stream the initial list); every run checks that LIST was called.
//
// Both caches carry the namespace index plus one custom index (spec.nodeName
// for pods, label "app" for configmaps), and one handler is registered.
// No decoding is measured: objects are handed over already built. Since both
// informers keep what they are given, and ours transforms it in place (drops
// managedFields; interns strings with InternStrings), every run gets fresh
// deep copies prepared while the timer is stopped. Run:
//
//	hack/bench-runtime.sh -count 3 'BenchmarkInformer(InitialSync|Updates|Overhead)'
//	go test ./bench -run '^$' -bench '^BenchmarkInformer' -benchmem -count 1
//
// The first took 13 minutes on 2 loaded cores (load average 8): every 100k
// sync also deep-copies 100k objects and collects garbage outside the timer.
// The wall-clock figures (ns/op, events/s) are only as steady as the machine
// is idle; allocs/op, B/op and B/obj are not affected by load.

// BenchmarkInformerInitialSync measures Run → the one (no-op) handler synced,
// for 100k pods (about 2.3 KB as JSON each, with managedFields) and for 100k
// small ConfigMaps as a small CRD-like type, listed in pages of 500. Ours
// applies its default transform (drops managedFields); for pods it also runs
// with KeepManagedFields (no transform at all) and with InternStrings. Ours
// also reports cpu-ns/op, the process CPU time of the timed part (all
// goroutines, garbage collection included), which a loaded machine inflates
// far less than ns/op.
func BenchmarkInformerInitialSync(b *testing.B) {
	pods := storePods()
	podOpts := informer.Options[*corev1.Pod]{Indexers: store.Indexers[*corev1.Pod]{"node": informerPodNodeOurs}}
	b.Run(fmt.Sprintf("pods=%d/impl=ours", len(pods)), func(b *testing.B) {
		benchSyncOurs(b, pods, podOpts)
	})
	b.Run(fmt.Sprintf("pods=%d/impl=ours,KeepManagedFields", len(pods)), func(b *testing.B) {
		o := podOpts
		o.KeepManagedFields = true
		benchSyncOurs(b, pods, o)
	})
	b.Run(fmt.Sprintf("pods=%d/impl=ours,InternStrings", len(pods)), func(b *testing.B) {
		o := podOpts
		o.InternStrings = true
		benchSyncOurs(b, pods, o)
	})
	b.Run(fmt.Sprintf("pods=%d/impl=client-go", len(pods)), func(b *testing.B) {
		benchSyncClientGo(b, len(pods), func() cgPageFunc { return podPages(freshPodValues(pods)) }, &corev1.Pod{}, podIndexersCG())
	})

	cms := informerConfigMaps()
	b.Run(fmt.Sprintf("configmaps=%d/impl=ours", len(cms)), func(b *testing.B) {
		benchSyncOurs(b, cms, informer.Options[*corev1.ConfigMap]{Indexers: store.Indexers[*corev1.ConfigMap]{"app": informerCMAppOurs}})
	})
	b.Run(fmt.Sprintf("configmaps=%d/impl=client-go", len(cms)), func(b *testing.B) {
		benchSyncClientGo(b, len(cms), func() cgPageFunc { return configMapPages(freshConfigMapValues(cms)) }, &corev1.ConfigMap{}, cmIndexersCG())
	})
}

// updateCounter counts OnUpdate calls and signals done when the count
// reaches the target set by expect.
type updateCounter struct {
	seen   atomic.Int64
	target atomic.Int64
	done   chan struct{}
}

func newUpdateCounter() *updateCounter {
	return &updateCounter{done: make(chan struct{}, 1)}
}

func (c *updateCounter) hit() {
	if c.seen.Add(1) == c.target.Load() {
		c.done <- struct{}{}
	}
}

// expect sets the count to wait for; call it before sending the events.
func (c *updateCounter) expect(n int64) { c.target.Store(c.seen.Load() + n) }

// updateChunk is how many events are prepared (while the timer is stopped)
// and then sent in one go.
const updateChunk = 50_000

// sendPodUpdates pushes b.N MODIFIED events, pod k%n of tmpl with a new
// resourceVersion for event k, through w and waits until the handler has
// received them all. Events are fresh deep copies, built in chunks while the
// timer is stopped; seq numbers events across calls so resourceVersions only
// grow.
func sendPodUpdates(b *testing.B, tmpl []*corev1.Pod, w *watch.FakeWatcher, c *updateCounter, seq *int) {
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	events := make([]*corev1.Pod, 0, updateChunk)
	var cpu time.Duration
	for sent := 0; sent < b.N; {
		events = events[:0]
		for k := sent; k < b.N && len(events) < updateChunk; k++ {
			p := tmpl[(*seq+k)%len(tmpl)].DeepCopy()
			p.ResourceVersion = strconv.Itoa(1_000_000 + *seq + k)
			events = append(events, p)
		}
		c.expect(int64(len(events)))
		runtime.GC()
		cpu0 := informerCPUTime()
		b.StartTimer()
		for _, p := range events {
			w.Modify(p)
		}
		<-c.done
		b.StopTimer()
		cpu += informerCPUTime() - cpu0
		sent += len(events)
	}
	*seq += b.N
	clear(events)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkInformerUpdates measures steady-state MODIFIED events through to
// one handler with 100k pods cached: ns/op and allocs/op are per event
// (watch channel → Reflector → FIFO → cache and indexes → handler), events/s
// is the throughput, and cpu-ns/op the process CPU time per event (all
// goroutines, less sensitive to a shared machine than wall time). The informer is synced once per impl (not
// timed) and reused across the benchmark's rounds.
func BenchmarkInformerUpdates(b *testing.B) {
	pods := storePods()
	name := fmt.Sprintf("cached=%d", len(pods))

	// Each impl's informer is set up on the first round and reused by the
	// later ones (the testing package calls the func once per b.N it tries).
	// Ours runs twice: with its defaults, and with InternStrings, which
	// shows what interning costs per event (see docs/performance.md).
	var stop func() error
	for _, v := range []struct {
		impl   string
		intern bool
	}{{"ours", false}, {"ours,InternStrings", true}} {
		var (
			ourW   *watch.FakeWatcher
			ourC   *updateCounter
			ourSeq int
		)
		b.Run(name+"/impl="+v.impl, func(b *testing.B) {
			if ourW == nil {
				ourW = watch.NewFakeWithChanSize(1024, false)
				src := &ourSource[*corev1.Pod]{items: freshObjs(pods), w: ourW}
				inf := newOurs(src, informer.Options[*corev1.Pod]{
					Indexers:      store.Indexers[*corev1.Pod]{"node": informerPodNodeOurs},
					Reflector:     reflector.Options{Name: "bench", PageSize: informerPageSize, WatchList: &informerNoWatchList},
					InternStrings: v.intern,
				})
				c := newUpdateCounter()
				reg, err := inf.AddHandler(informer.HandlerFuncs[*corev1.Pod]{UpdateFunc: func(_, _ *corev1.Pod) { c.hit() }}, informer.HandlerOptions{})
				if err != nil {
					b.Fatal(err)
				}
				ourC = c
				stop = startOurs(inf, ourW)
				waitOurs(b, reg)
				src.check(b, "ours", len(pods))
				src.items = nil // the cache holds them now
			}
			sendPodUpdates(b, pods, ourW, ourC, &ourSeq)
		})
		if stop != nil {
			if err := stop(); err != nil {
				b.Fatal(err)
			}
			stop = nil
		}
	}

	var (
		cgW   *watch.FakeWatcher
		cgC   *updateCounter
		cgSeq int
	)
	b.Run(name+"/impl=client-go", func(b *testing.B) {
		if cgW == nil {
			cgW = watch.NewFakeWithChanSize(1024, false)
			src := newCGSource(len(pods), podPages(freshPodValues(pods)), cgW)
			inf := cache.NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, cache.SharedIndexInformerOptions{Indexers: podIndexersCG()})
			c := newUpdateCounter()
			reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) { c.hit() }})
			if err != nil {
				b.Fatal(err)
			}
			cgC = c
			stop = startClientGo(inf, cgW)
			waitClientGo(b, reg)
			src.check(b, "client-go", len(pods))
		}
		sendPodUpdates(b, pods, cgW, cgC, &cgSeq)
	})
	if stop != nil {
		_ = stop()
	}
}

// informerCPUTime returns the CPU time (user and system) the process has used
// so far, every goroutine included: unlike wall time, it does not grow when
// other processes share the cores.
func informerCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// informerLiveHeap returns the live heap after full collections.
func informerLiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkInformerOverhead reports the live heap a synced informer adds per
// cached object beyond the objects themselves (B/obj): cache, key table,
// namespace index, node index and whatever the FIFO, reflector and handler
// keep. ns/op is the sync time.
//
// The 100k pods keep their managedFields (ours runs with KeepManagedFields),
// so ours frees nothing from the objects and only the informer's own
// structures are measured. The heap before sync includes the objects as the
// source holds them: for ours []*Pod, kept alive until after the measurement;
// for client-go the []Pod pages, which are released after sync because
// client-go's list extraction stores shallow copies of them (a real LIST's
// decoded page is garbage after extraction too), so the two cancel out.
func BenchmarkInformerOverhead(b *testing.B) {
	tmpl := storePods()
	n := len(tmpl)
	b.Run("impl=ours", func(b *testing.B) {
		var perObj float64
		for b.Loop() {
			b.StopTimer()
			src := &ourSource[*corev1.Pod]{items: freshObjs(tmpl), w: watch.NewFake()}
			before := informerLiveHeap()
			inf := newOurs(src, informer.Options[*corev1.Pod]{
				Indexers:          store.Indexers[*corev1.Pod]{"node": informerPodNodeOurs},
				KeepManagedFields: true,
				Reflector:         reflector.Options{Name: "bench", PageSize: informerPageSize, WatchList: &informerNoWatchList},
			})
			reg, err := inf.AddHandler(informer.HandlerFuncs[*corev1.Pod]{AddFunc: func(*corev1.Pod, bool) {}}, informer.HandlerOptions{})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			stop := startOurs(inf, src.w)
			waitOurs(b, reg)
			b.StopTimer()
			perObj = float64(int64(informerLiveHeap())-int64(before)) / float64(n)
			if got := inf.Indexer().Len(); got != n {
				b.Fatalf("ours: cache holds %d objects, want %d", got, n)
			}
			if err := stop(); err != nil {
				b.Fatal(err)
			}
			src.check(b, "ours", n)
			runtime.KeepAlive(src.items)
			b.StartTimer()
		}
		b.ReportMetric(perObj, "B/obj")
	})

	b.Run("impl=client-go", func(b *testing.B) {
		var perObj float64
		for b.Loop() {
			b.StopTimer()
			var pages atomic.Pointer[[]corev1.Pod]
			pages.Store(benchPtr(freshPodValues(tmpl)))
			w := watch.NewFake()
			src := newCGSource(n, func(from, to int, next string) kruntime.Object {
				return podPages(*pages.Load())(from, to, next)
			}, w)
			before := informerLiveHeap()
			inf := cache.NewSharedIndexInformerWithOptions(src, &corev1.Pod{}, cache.SharedIndexInformerOptions{Indexers: podIndexersCG()})
			reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) {}})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			stop := startClientGo(inf, w)
			waitClientGo(b, reg)
			b.StopTimer()
			pages.Store(nil) // the cache holds shallow copies of the page items
			perObj = float64(int64(informerLiveHeap())-int64(before)) / float64(n)
			if got := len(inf.GetStore().ListKeys()); got != n {
				b.Fatalf("client-go: cache holds %d objects, want %d", got, n)
			}
			stop()
			src.check(b, "client-go", n)
			b.StartTimer()
		}
		b.ReportMetric(perObj, "B/obj")
	})
}
