package bench_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// The sources, handlers and sync loops the informer benchmarks share
// (informer_test.go describes what they measure).

const (
	informerObjects  = 100_000
	informerPageSize = 500
	informerPages    = informerObjects / informerPageSize
)

var informerNoWatchList = false

// informerPage returns the bounds of the page opts asks for in a collection of
// n objects, and the continue token of the next page ("" on the last).
func informerPage(n int, opts metav1.ListOptions) (from, to int, next string, err error) {
	if opts.Continue != "" {
		if from, err = strconv.Atoi(opts.Continue); err != nil || from < 0 || from > n {
			return 0, 0, "", fmt.Errorf("bad continue token %q", opts.Continue)
		}
	}
	to = n
	if opts.Limit > 0 && int64(n-from) > opts.Limit {
		to = from + int(opts.Limit)
		next = strconv.Itoa(to)
	}
	return from, to, next, nil
}

// sourceStats counts what a source was asked for, so a run can check that
// its informer paged and did not use WatchList.
type sourceStats struct {
	pages      atomic.Int64 // LIST calls
	badLimit   atomic.Int64 // LIST calls with a limit other than informerPageSize
	watchLists atomic.Int64 // watches with sendInitialEvents=true
}

func (s *sourceStats) list(opts metav1.ListOptions) {
	s.pages.Add(1)
	if opts.Limit != informerPageSize {
		s.badLimit.Add(1)
	}
}

func (s *sourceStats) watch(opts metav1.ListOptions) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		s.watchLists.Add(1)
	}
}

// check fails b unless the source served exactly the pages of a paged
// list+watch of n objects.
func (s *sourceStats) check(b *testing.B, impl string, n int) {
	b.Helper()
	want := int64((n + informerPageSize - 1) / informerPageSize)
	if got := s.pages.Load(); got != want || s.badLimit.Load() != 0 || s.watchLists.Load() != 0 {
		b.Fatalf("%s: %d LIST calls (%d without limit=%d) and %d WatchList watches; want %d pages and no WatchList",
			impl, got, s.badLimit.Load(), informerPageSize, s.watchLists.Load(), want)
	}
}

// ourSource serves items to our Reflector in pages, each with the
// remainingItemCount an API server reports on a paged LIST of everything (by
// which the Reflector sizes its buffer once). It is a typed
// reflector.ListerWatcher[T], as a user's source or runtimetest's is: the
// runtime appends each page's items to the Reflector's list as it converts
// them (one copy per item, as from the factory's REST source, whose codecs
// decode a page into untyped items).
type ourSource[T store.Object[T]] struct {
	sourceStats
	items []T
	w     *watch.FakeWatcher
}

func (s *ourSource[T]) List(_ context.Context, opts metav1.ListOptions) (*reflector.ListResult[T], error) {
	s.list(opts)
	from, to, next, err := informerPage(len(s.items), opts)
	if err != nil {
		return nil, err
	}
	res := &reflector.ListResult[T]{Items: s.items[from:to:to], ResourceVersion: "1", Continue: next}
	if next != "" {
		remaining := int64(len(s.items) - to)
		res.RemainingItemCount = &remaining
	}
	return res, nil
}

func (s *ourSource[T]) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	s.watch(opts)
	return s.w, nil
}

// newOurs builds our informer of T over src.
func newOurs[T store.Object[T]](src *ourSource[T], opts informer.Options[T]) *informer.Informer[T] {
	return informer.New[T](src, opts)
}

// cgSource is a cache.ListWatch serving pages built by page, declaring that it
// cannot do WatchList so client-go's Reflector lists then watches.
type cgSource struct {
	*cache.ListWatch
	sourceStats
}

func (*cgSource) IsWatchListSemanticsUnSupported() bool { return true }

// cgPageFunc returns the list object for items [from, to) with continue token
// next.
type cgPageFunc func(from, to int, next string) kruntime.Object

func newCGSource(n int, page cgPageFunc, w watch.Interface) *cgSource {
	s := &cgSource{}
	s.ListWatch = &cache.ListWatch{
		ListWithContextFunc: func(_ context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
			s.list(opts)
			from, to, next, err := informerPage(n, opts)
			if err != nil {
				return nil, err
			}
			return page(from, to, next), nil
		},
		WatchFuncWithContext: func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			s.watch(opts)
			return w, nil
		},
	}
	return s
}

func podPages(items []corev1.Pod) cgPageFunc {
	return func(from, to int, next string) kruntime.Object {
		return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1", Continue: next}, Items: items[from:to:to]}
	}
}

func configMapPages(items []corev1.ConfigMap) cgPageFunc {
	return func(from, to int, next string) kruntime.Object {
		return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1", Continue: next}, Items: items[from:to:to]}
	}
}

// Indexes: the namespace index (built into ours) plus one custom index.
func informerPodNodeOurs(p *corev1.Pod) ([]string, error) { return store.Values(p.Spec.NodeName), nil }
func informerPodNodeCG(obj any) ([]string, error) {
	return []string{obj.(*corev1.Pod).Spec.NodeName}, nil
}
func informerCMAppOurs(c *corev1.ConfigMap) ([]string, error) {
	return store.Values(c.Labels["app"]), nil
}
func informerCMAppCG(obj any) ([]string, error) {
	return []string{obj.(*corev1.ConfigMap).Labels["app"]}, nil
}

func podIndexersCG() cache.Indexers {
	return cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, "node": informerPodNodeCG}
}

func cmIndexersCG() cache.Indexers {
	return cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, "app": informerCMAppCG}
}

// newBenchConfigMap is object i of the small CRD-like population: a ConfigMap
// with 3 labels and 2 small data keys (~400 bytes as JSON), no managedFields.
func newBenchConfigMap(i int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         fmt.Sprintf("ns-%d", i%benchNamespaces),
			Name:              fmt.Sprintf("cm-%d", i),
			UID:               types.UID(fmt.Sprintf("3d2c1b0a-0000-4000-8000-%012d", i)),
			ResourceVersion:   strconv.Itoa(1000 + i),
			CreationTimestamp: metav1.Unix(1700000000+int64(i), 0),
			Labels: map[string]string{
				"app":  fmt.Sprintf("app-%d", i%benchApps),
				"env":  []string{"prod", "staging"}[i%2],
				"team": fmt.Sprintf("team-%d", i%20),
			},
		},
		Data: map[string]string{
			"replicas": strconv.Itoa(i%5 + 1),
			"endpoint": fmt.Sprintf("https://svc-%d.example.com:8443", i%benchApps),
		},
	}
}

var informerConfigMaps = sync.OnceValue(func() []*corev1.ConfigMap {
	cms := make([]*corev1.ConfigMap, informerObjects)
	for i := range cms {
		cms[i] = newBenchConfigMap(i)
	}
	return cms
})

// freshObjs deep-copies the templates (never handed to an informer).
func freshObjs[T store.Object[T]](tmpl []T) []T {
	out := make([]T, len(tmpl))
	for i, o := range tmpl {
		out[i] = o.DeepCopy()
	}
	return out
}

func freshPodValues(tmpl []*corev1.Pod) []corev1.Pod {
	out := make([]corev1.Pod, len(tmpl))
	for i, o := range tmpl {
		o.DeepCopyInto(&out[i])
	}
	return out
}

func freshConfigMapValues(tmpl []*corev1.ConfigMap) []corev1.ConfigMap {
	out := make([]corev1.ConfigMap, len(tmpl))
	for i, o := range tmpl {
		o.DeepCopyInto(&out[i])
	}
	return out
}

// startOurs runs inf until the returned stop is called; stop waits for Run to
// return and returns its error.
func startOurs[T store.Object[T]](inf *informer.Informer[T], w *watch.FakeWatcher) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	return func() error {
		cancel()
		w.Stop()
		if err := <-done; err != nil {
			return fmt.Errorf("ours: Run: %w", err)
		}
		return nil
	}
}

// startClientGo is startOurs for client-go (whose Run returns no error).
func startClientGo(inf cache.SharedIndexInformer, w *watch.FakeWatcher) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	return func() error {
		cancel()
		w.Stop()
		wg.Wait()
		return nil
	}
}

func waitOurs(b *testing.B, reg *informer.Registration) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := informer.WaitForCacheSync(ctx, reg); err != nil {
		b.Fatalf("ours: %v", err)
	}
}

func waitClientGo(b *testing.B, reg cache.ResourceEventHandlerRegistration) {
	b.Helper()
	if !cache.WaitForCacheSync(context.Background().Done(), reg.HasSynced) {
		b.Fatal("client-go: informer did not sync")
	}
}

// benchSyncOurs measures Run → the one handler synced for fresh copies of
// tmpl, per iteration.
func benchSyncOurs[T store.Object[T]](b *testing.B, tmpl []T, opts informer.Options[T]) {
	opts.Reflector = reflector.Options{Name: "bench", PageSize: informerPageSize, WatchList: &informerNoWatchList}
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		src := &ourSource[T]{items: freshObjs(tmpl), w: watch.NewFake()}
		inf := newOurs(src, opts)
		reg, err := inf.AddHandler(informer.HandlerFuncs[T]{AddFunc: func(T, bool) {}}, informer.HandlerOptions{})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		cpu0 := informerCPUTime()
		b.StartTimer()
		stop := startOurs(inf, src.w)
		waitOurs(b, reg)
		b.StopTimer()
		cpu += informerCPUTime() - cpu0
		if err := stop(); err != nil {
			b.Fatal(err)
		}
		src.check(b, "ours", len(tmpl))
		if got := inf.Indexer().Len(); got != len(tmpl) {
			b.Fatalf("ours: cache holds %d objects, want %d", got, len(tmpl))
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tmpl)), "ns/object")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// benchSyncClientGo is benchSyncOurs for client-go; fresh returns the page
// func over fresh copies of the same n objects.
func benchSyncClientGo(b *testing.B, n int, fresh func() cgPageFunc, example kruntime.Object, indexers cache.Indexers) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		w := watch.NewFake()
		src := newCGSource(n, fresh(), w)
		inf := cache.NewSharedIndexInformerWithOptions(src, example, cache.SharedIndexInformerOptions{Indexers: indexers})
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) {}})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		stop := startClientGo(inf, w)
		waitClientGo(b, reg)
		b.StopTimer()
		stop()
		src.check(b, "client-go", n)
		if got := len(inf.GetStore().ListKeys()); got != n {
			b.Fatalf("client-go: cache holds %d objects, want %d", got, n)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
}
