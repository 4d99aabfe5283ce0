package bench_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// BenchmarkInformerChurn adds and removes the informers of 200 kinds in a
// loop, as a controller whose watched kinds change at run time does: each
// round creates every kind's informer with a handler (InformerFor +
// AddHandler), waits for the caches to sync, then removes them all
// (factory.RemoveInformer). The kinds are read from in-process fake sources
// (20 ConfigMaps per kind), not from an API server: the
// benchmark is about what the factory keeps, not the wire. It reports, after
// the last round, the goroutines above the baseline taken before the first
// (goroutines-over, want 0) and the live heap after GC relative to that
// baseline (heap-ratio, want ≤ 1.05); ns/op is one round.
//
//	go test -run '^$' -bench 'BenchmarkInformerChurn$' -benchtime 20x ./bench/
func BenchmarkInformerChurn(b *testing.B) {
	const kinds, objects = 200, 20
	opts := factory.Options{}
	types := make([]factory.Type[*corev1.ConfigMap], kinds)
	for k := range kinds {
		types[k] = factory.Type[*corev1.ConfigMap]{
			Resource:    schema.GroupVersionResource{Group: "churn.example.com", Version: "v1", Resource: "kind" + strconv.Itoa(k) + "s"},
			Namespaced:  true,
			AddToScheme: corev1.AddToScheme,
			Kind:        "ConfigMap",
		}
		objs := make([]*corev1.ConfigMap, objects)
		for i := range objs {
			objs[i] = &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm-" + strconv.Itoa(i), ResourceVersion: "1"},
				Data:       map[string]string{"k": "v"},
			}
		}
		// A source that keeps nothing per request (a runtimetest.Source
		// records every request it serves, for tests to inspect, which
		// would grow with the rounds).
		opts.Types = append(opts.Types, factory.TypeOptions[*corev1.ConfigMap]{Type: types[k], ListerWatcher: churnSource{objs}})
	}
	f := factory.New(nil, opts)
	defer f.Shutdown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.Start(ctx)

	round := func() {
		for _, typ := range types {
			inf := factory.InformerFor(f, typ)
			if _, err := inf.AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{}, informer.HandlerOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		if err := f.WaitForCacheSync(ctx); err != nil {
			b.Fatal(err)
		}
		for _, typ := range types {
			if !f.RemoveInformer(typ) {
				b.Fatalf("%s: no informer to remove", typ.Resource)
			}
		}
	}
	goroutines0, heapCold := churnBaseline()
	// One warm-up round: what the first use of 200 kinds allocates for good
	// (the factory's maps grown to 200 entries, the group-version's scheme
	// and codec) is the baseline, not churn.
	round()
	_, heap0 := churnBaseline()
	b.ResetTimer()
	for i := range b.N {
		round()
		if churnDebug {
			b.StopTimer()
			_, h := churnBaseline()
			b.Logf("round %d: heap %.3f MiB", i, float64(h)/(1<<20))
			b.StartTimer()
		}
	}
	b.StopTimer()
	goroutines, heap := churnBaseline()
	b.ReportMetric(float64(goroutines-goroutines0), "goroutines-over")
	b.ReportMetric(float64(heap)/float64(heap0), "heap-ratio")
	b.ReportMetric(float64(heap)/float64(heapCold), "heap-ratio-cold")
	b.ReportMetric(float64(heap0)/(1<<20), "heap0-MiB")
}

const churnDebug = false // true logs the heap after every round

// churnBaseline returns the goroutine count and the live heap after two GCs.
// Goroutines that are exiting get a moment to finish.
func churnBaseline() (int, uint64) {
	var ms runtime.MemStats
	for range 2 {
		runtime.GC()
	}
	time.Sleep(100 * time.Millisecond)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapAlloc
}

// churnSource lists its objects at resourceVersion 1 and serves watches
// that never send an event, until their ctx ends; it refuses WatchList, so
// the reflector lists.
type churnSource struct{ objs []*corev1.ConfigMap }

func (s churnSource) List(context.Context, metav1.ListOptions) (*reflector.ListResult[*corev1.ConfigMap], error) {
	return &reflector.ListResult[*corev1.ConfigMap]{Items: s.objs, ResourceVersion: "1"}, nil
}

func (s churnSource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		return nil, apierrors.NewBadRequest("no WatchList here")
	}
	w := watch.NewFake()
	context.AfterFunc(ctx, w.Stop)
	return w, nil
}

// must returns a codec a test built, panicking if the constructor failed.
func must[C any](c C, err error) C {
	if err != nil {
		panic(err)
	}
	return c
}
