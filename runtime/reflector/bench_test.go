package reflector_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// The Reflector stage alone, ours and client-go v0.37.2's, on identical
// in-memory inputs and a sink that only counts: no decoding, no FIFO, no
// cache. End-to-end figures live in runtime/informer and bench/.

func benchObjects(n int) []*corev1.ConfigMap {
	out := make([]*corev1.ConfigMap, n)
	for i := range out {
		out[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns-" + strconv.Itoa(i%50), Name: "cm-" + strconv.Itoa(i),
			ResourceVersion: strconv.Itoa(i + 1), Labels: map[string]string{"app": "bench"},
		}}
	}
	return out
}

// countSink counts calls and closes done when the count reaches want (set
// before the run) or a Replace arrives with replaceDone.
type countSink struct {
	n, want   atomic.Int64
	done      chan struct{}
	doneOnce  sync.Once
	onReplace bool
}

func newCountSink(want int64, onReplace bool) *countSink {
	s := &countSink{done: make(chan struct{}), onReplace: onReplace}
	s.want.Store(want)
	return s
}

func (s *countSink) hit() {
	if s.n.Add(1) == s.want.Load() {
		s.doneOnce.Do(func() { close(s.done) })
	}
}
func (s *countSink) replaced() {
	if s.onReplace {
		s.doneOnce.Do(func() { close(s.done) })
	}
}

type ourSink struct{ *countSink }

func (s ourSink) Add(*corev1.ConfigMap) error               { s.hit(); return nil }
func (s ourSink) Update(*corev1.ConfigMap) error            { s.hit(); return nil }
func (s ourSink) Delete(*corev1.ConfigMap) error            { s.hit(); return nil }
func (s ourSink) Replace([]*corev1.ConfigMap, string) error { s.replaced(); return nil }
func (s ourSink) Resync() error                             { return nil }

type cgStore struct{ *countSink }

func (s cgStore) Add(any) error               { s.hit(); return nil }
func (s cgStore) Update(any) error            { s.hit(); return nil }
func (s cgStore) Delete(any) error            { s.hit(); return nil }
func (s cgStore) Replace([]any, string) error { s.replaced(); return nil }
func (s cgStore) Resync() error               { return nil }

// pagedLW serves objs in pages of the requested limit, then one watch.
type pagedLW struct {
	objs []*corev1.ConfigMap
	w    watch.Interface
}

func page(n int, opts metav1.ListOptions) (from, to int, next string) {
	from, _ = strconv.Atoi(opts.Continue)
	to = n
	if opts.Limit > 0 && int64(n-from) > opts.Limit {
		to = from + int(opts.Limit)
		next = strconv.Itoa(to)
	}
	return from, to, next
}

func (l *pagedLW) List(_ context.Context, opts metav1.ListOptions) (*reflector.ListResult[*corev1.ConfigMap], error) {
	from, to, next := page(len(l.objs), opts)
	return &reflector.ListResult[*corev1.ConfigMap]{Items: l.objs[from:to], ResourceVersion: "1", Continue: next}, nil
}

func (l *pagedLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return l.w, nil
}

// cgPagedLW is pagedLW for client-go, with the pages prebuilt as ConfigMapLists.
type cgPagedLW struct {
	items []corev1.ConfigMap
	w     watch.Interface
}

func (l *cgPagedLW) List(opts metav1.ListOptions) (runtime.Object, error) {
	from, to, next := page(len(l.items), opts)
	return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1", Continue: next}, Items: l.items[from:to]}, nil
}
func (l *cgPagedLW) Watch(metav1.ListOptions) (watch.Interface, error) { return l.w, nil }
func (l *cgPagedLW) IsWatchListSemanticsUnSupported() bool             { return true }

// BenchmarkReflectorInitialList measures Run → Replace of 20k objects listed
// in pages of 500.
func BenchmarkReflectorInitialList(b *testing.B) {
	const n = 20000
	objs := benchObjects(n)
	b.Run("impl=ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink := newCountSink(0, true)
			r := reflector.New[*corev1.ConfigMap](&pagedLW{objs: objs, w: watch.NewFake()}, ourSink{sink}, reflector.Options{WatchList: &no})
			runUntil(r.Run, sink.done)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
	})
	b.Run("impl=client-go", func(b *testing.B) {
		items := make([]corev1.ConfigMap, n)
		for i, o := range objs {
			items[i] = *o
		}
		b.ReportAllocs()
		for b.Loop() {
			sink := newCountSink(0, true)
			r := cache.NewReflectorWithOptions(&cgPagedLW{items: items, w: watch.NewFake()}, &corev1.ConfigMap{}, cgStore{sink}, cache.ReflectorOptions{})
			runUntil(func(ctx context.Context) error { r.RunWithContext(ctx); return nil }, sink.done)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
	})
}

// BenchmarkReflectorWatchEvents measures MODIFIED events from a watch channel
// to the sink, per event. Each event carries a resourceVersion newer than the
// last (the LIST's is 1), as an API server's do: ours refuses an older or
// repeated one (the package doc, "Hostile servers"). The objects are reused
// in a cycle longer than the watch's buffer, so one is rewritten only after
// the Reflector is done with it; formatting its resourceVersion is one
// allocation per event, for both.
func BenchmarkReflectorWatchEvents(b *testing.B) {
	const buffer = 1024
	objs := benchObjects(4 * buffer)
	send := func(b *testing.B, w *watch.FakeWatcher, done <-chan struct{}) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			o := objs[i%len(objs)]
			o.ResourceVersion = strconv.Itoa(i + 2)
			w.Modify(o)
		}
		<-done
		b.StopTimer()
	}
	b.Run("impl=ours", func(b *testing.B) {
		w := watch.NewFakeWithChanSize(buffer, false)
		sink := newCountSink(int64(b.N), false)
		r := reflector.New[*corev1.ConfigMap](&pagedLW{w: w}, ourSink{sink}, reflector.Options{WatchList: &no})
		runWhile(r.Run, func() { send(b, w, sink.done) })
	})
	b.Run("impl=client-go", func(b *testing.B) {
		w := watch.NewFakeWithChanSize(buffer, false)
		sink := newCountSink(int64(b.N), false)
		r := cache.NewReflectorWithOptions(&cgPagedLW{w: w}, &corev1.ConfigMap{}, cgStore{sink}, cache.ReflectorOptions{})
		runWhile(func(ctx context.Context) error { r.RunWithContext(ctx); return nil }, func() { send(b, w, sink.done) })
	})
}

// runUntil runs run until done is closed, then stops it and waits.
func runUntil(run func(context.Context) error, done <-chan struct{}) {
	runWhile(run, func() { <-done })
}

func runWhile(run func(context.Context) error, body func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := run(ctx); err != nil {
			panic(fmt.Sprint("run: ", err))
		}
	})
	body()
	cancel()
	wg.Wait()
}
