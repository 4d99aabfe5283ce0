package informer_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// chanLW lists a fixed set of objects once and then serves one watch fed by
// the benchmark. Objects are never mutated, so no decode cost is measured:
// the figures are Reflector → FIFO → Indexer → handler.
type chanLW struct {
	items []CM
	w     *watch.FakeWatcher
}

func (l *chanLW) List(context.Context, metav1.ListOptions) (*reflector.ListResult[CM], error) {
	return &reflector.ListResult[CM]{Items: l.items, ResourceVersion: "1"}, nil
}

func (l *chanLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return l.w, nil
}

// cgLW is chanLW for client-go; it declares it cannot do WatchList so both
// informers list then watch.
type cgLW struct {
	items []corev1.ConfigMap
	w     *watch.FakeWatcher
}

func (l *cgLW) List(metav1.ListOptions) (runtime.Object, error) {
	return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: l.items}, nil
}
func (l *cgLW) Watch(metav1.ListOptions) (watch.Interface, error) { return l.w, nil }
func (l *cgLW) IsWatchListSemanticsUnSupported() bool             { return true }

// BenchmarkSteadyStateUpdates sends update events for 10k cached ConfigMaps
// through a running informer to one handler; ns/op and allocs/op are per
// event, end to end (Reflector → FIFO → Indexer → handler; no decoding), for
// this informer and client-go's on the same objects.
func BenchmarkSteadyStateUpdates(b *testing.B) {
	const n = 10000
	// Two versions per key, alternated, so the object sent is never the one
	// cached (and nothing is mutated).
	var vers [2][]CM
	for v := range vers {
		for i := range n {
			o := cm("ns", fmt.Sprint("cm-", i), fmt.Sprint(v))
			o.Labels = map[string]string{"app": "bench", "tier": fmt.Sprint(i % 10)}
			o.ResourceVersion = fmt.Sprint(v + 1)
			vers[v] = append(vers[v], o)
		}
	}
	// With observers that do nothing: what observing the handlers
	// (backlogs) and the pop loop costs the runtime itself.
	for _, m := range []struct {
		name    string
		metrics informer.Metrics
	}{{"", nil}, {"/metrics=handlers", nopMetrics{}}, {"/metrics=handlers+process", nopProcessMetrics{}}} {
		b.Run("impl=ours"+m.name, func(b *testing.B) { benchSteadyStateUpdates(b, vers, n, m.metrics) })
	}
	b.Run("impl=client-go", func(b *testing.B) {
		items := make([]corev1.ConfigMap, n)
		for i, o := range vers[0] {
			items[i] = *o.DeepCopy()
		}
		lw := &cgLW{items: items, w: watch.NewFakeWithChanSize(1024, false)}
		inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
		h, wait := counter(b.N)
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) { h() }})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { inf.RunWithContext(ctx) })
		if !cache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
			b.Fatal("client-go informer did not sync")
		}
		sendUpdates(b, lw.w, vers, n, wait)
		cancel()
		lw.w.Stop()
		wg.Wait()
	})
}

// counter returns a handler func and a channel closed at its want'th call.
func counter(want int) (func(), <-chan struct{}) {
	var seen atomic.Int64
	ch := make(chan struct{})
	return func() {
		if seen.Add(1) == int64(want) {
			close(ch)
		}
	}, ch
}

// sendUpdates sends b.N updates, each at a newer resourceVersion than the
// last (a Reflector ends a watch whose resourceVersions go back). Each
// round of n events is made outside the timer, as shallow copies of the
// round's version with the resourceVersion set, so nothing sent is ever
// mutated and the benchmark's own allocations are not counted.
func sendUpdates(b *testing.B, w *watch.FakeWatcher, vers [2][]CM, n int, delivered <-chan struct{}) {
	b.ReportAllocs()
	b.ResetTimer()
	var round []corev1.ConfigMap
	for i := 0; i < b.N; i++ {
		if i%n == 0 {
			b.StopTimer()
			round = make([]corev1.ConfigMap, n)
			for k, o := range vers[(i/n+1)%2] {
				round[k] = *o
				round[k].ResourceVersion = strconv.Itoa(i + k + 2)
			}
			b.StartTimer()
		}
		w.Modify(&round[i%n])
	}
	<-delivered
	b.StopTimer()
}

// BenchmarkInitialSync measures Run → every handler synced for 20k
// ConfigMaps served by one in-memory LIST (no decoding), ours and client-go's,
// with one handler each. Objects are deep-copied per iteration outside the
// timer, since both informers keep (and ours compacts) what they are given.
func BenchmarkInitialSync(b *testing.B) {
	const n = 20000
	base := make([]CM, n)
	for i := range base {
		o := cm(fmt.Sprint("ns-", i%50), fmt.Sprint("cm-", i), "v")
		o.Labels = map[string]string{"app": "bench", "tier": fmt.Sprint(i % 10)}
		o.ResourceVersion = "1"
		base[i] = o
	}
	b.Run("impl=ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			items := make([]CM, n)
			for i, o := range base {
				items[i] = o.DeepCopy()
			}
			lw := &chanLW{items: items, w: watch.NewFakeWithChanSize(1, false)}
			noWL := false
			inf := informer.New[CM](lw, informer.Options[CM]{Reflector: reflector.Options{Name: "bench", WatchList: &noWL, PageSize: n}})
			reg, err := inf.AddHandler(informer.HandlerFuncs[CM]{}, informer.HandlerOptions{})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			b.StartTimer()
			go func() { done <- inf.Run(ctx) }()
			if err := informer.WaitForCacheSync(ctx, reg); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			cancel()
			lw.w.Stop()
			<-done
			b.StartTimer()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
	})
	b.Run("impl=client-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			items := make([]corev1.ConfigMap, n)
			for i, o := range base {
				items[i] = *o.DeepCopy()
			}
			lw := &cgLW{items: items, w: watch.NewFakeWithChanSize(1, false)}
			inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
			reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			b.StartTimer()
			wg.Go(func() { inf.RunWithContext(ctx) })
			if !cache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
				b.Fatal("client-go informer did not sync")
			}
			b.StopTimer()
			cancel()
			lw.w.Stop()
			wg.Wait()
			b.StartTimer()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
	})
}

// benchSteadyStateUpdates is BenchmarkSteadyStateUpdates' run of this
// informer, with metrics as its Options.Metrics.
func benchSteadyStateUpdates(b *testing.B, vers [2][]CM, n int, metrics informer.Metrics) {
	lw := &chanLW{items: vers[0], w: watch.NewFakeWithChanSize(1024, false)}
	noWL := false
	inf := informer.New[CM](lw, informer.Options[CM]{Reflector: reflector.Options{Name: "bench", WatchList: &noWL}, Metrics: metrics})
	h, wait := counter(b.N)
	reg, err := inf.AddHandler(informer.HandlerFuncs[CM]{UpdateFunc: func(_, _ CM) { h() }}, informer.HandlerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, reg); err != nil {
		b.Fatal(err)
	}
	sendUpdates(b, lw.w, vers, n, wait)
	cancel()
	lw.w.Stop()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// nopMetrics observes the handlers and does nothing with it;
// nopProcessMetrics the pop loop too.
type nopMetrics struct{}

func (nopMetrics) Handler(*informer.Registration) func(string) { return nil }

func (nopMetrics) Process() func(time.Duration, int, string) { return nil }

type nopProcessMetrics struct{ nopMetrics }

func (nopProcessMetrics) Process() func(time.Duration, int, string) {
	return func(time.Duration, int, string) {}
}
