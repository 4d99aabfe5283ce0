package bench_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// BenchmarkInformerChurn adds and removes the informers of 200 kinds in a
// loop, as a controller whose watched kinds change at run time does: each
// round creates every kind's informer with a handler (InformerFor +
// AddHandler), waits for the caches to sync, then removes them all
// (factory.RemoveInformer). The kinds are read from in-process fake sources
// (a runtimetest.Source per informer, 20 ConfigMaps each), not from an API server: the
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
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm-" + strconv.Itoa(i)},
				Data:       map[string]string{"k": "v"},
			}
		}
		// A fresh source for every informer: a runtimetest.Source records
		// every request it serves (for tests to inspect), which would grow
		// with the rounds.
		gr := types[k].Resource.GroupResource()
		factory.SetListerWatcherFunc(&opts, types[k], func(string) reflector.ListerWatcher[*corev1.ConfigMap] {
			return runtimetest.NewSource(runtimetest.SourceOptions{Resource: gr}, objs...)
		})
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
			if !factory.RemoveInformer(f, typ) {
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

// must returns a codec a test built, panicking if the constructor failed.
func must[C any](c C, err error) C {
	if err != nil {
		panic(err)
	}
	return c
}
