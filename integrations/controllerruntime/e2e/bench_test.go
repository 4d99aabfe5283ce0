package e2e_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	informersv1 "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1"
	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
)

// benchFoos is how many Foos BenchmarkCacheSync lists; created once.
const benchFoos = 5000

var benchOnce sync.Once

func createBenchFoos(b *testing.B) {
	benchOnce.Do(func() {
		c := newClient(b)
		ctx := context.Background()
		sem := make(chan struct{}, 16)
		var wg sync.WaitGroup
		errs := make(chan error, benchFoos)
		for i := range benchFoos {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				f := foo("bench", fmt.Sprintf("foo-%d", i), fmt.Sprintf("h%d", i%50))
				f.Labels = map[string]string{"app": "bench", "shard": fmt.Sprint(i % 8)}
				if err := c.Create(ctx, f); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	})
}

// newBenchCache returns a controller-runtime cache for Foos in namespace
// "bench": controller-runtime's own informers (with or without its
// managedFields-stripping transform), or ours through SharedInformers.
func newBenchCache(b *testing.B, mode string) (cache.Cache, func()) {
	opts := cache.Options{Scheme: newScheme(b), Mapper: restMapper(), DefaultNamespaces: map[string]cache.Config{"bench": {}}}
	stop := func() {}
	switch mode {
	case "controller-runtime":
	case "controller-runtime+strip":
		opts.DefaultTransform = cache.TransformStripManagedFields()
	case "informer-gen":
		f := informers.NewSharedInformerFactory(server.Config(), factory.Options{Namespaces: []string{"bench"}})
		shared := crinformers.NewSharedInformers(f.Factory)
		crinformers.Share(shared, informersv1.FooType)
		opts.NewInformer = shared.NewInformer
		stop = f.Shutdown
	}
	c, err := cache.New(server.Config(), opts)
	if err != nil {
		b.Fatal(err)
	}
	return c, stop
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkCacheSync compares controller-runtime's cache on its own
// informers with the same cache on informer-gen's (SharedInformers), for
// benchFoos Foos: the time from Start to WaitForCacheSync and the heap the
// synced cache holds (live heap after GC, minus the heap before it was
// built). Run it alone, on a quiet machine:
//
//	(cd integrations/controllerruntime/e2e && go test -run XXX -bench CacheSync -benchtime 5x .)
func BenchmarkCacheSync(b *testing.B) {
	createBenchFoos(b)
	for _, mode := range []string{"controller-runtime", "controller-runtime+strip", "informer-gen"} {
		b.Run(mode, func(b *testing.B) {
			var syncTotal time.Duration
			var heapTotal float64
			for b.Loop() {
				before := heap()
				c, stop := newBenchCache(b, mode)
				ctx, cancel := context.WithCancel(context.Background())
				if _, err := c.GetInformer(ctx, &samplev1.Foo{}); err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				done := make(chan error, 1)
				go func() { done <- c.Start(ctx) }()
				if !c.WaitForCacheSync(ctx) {
					b.Fatal("cache did not sync")
				}
				syncTotal += time.Since(start)
				var got samplev1.Foo
				if err := c.Get(ctx, types.NamespacedName{Namespace: "bench", Name: "foo-1"}, &got); err != nil {
					b.Fatal(err)
				}
				heapTotal += float64(heap() - before)
				runtime.KeepAlive(c)
				cancel()
				<-done
				stop()
			}
			b.ReportMetric(float64(syncTotal.Milliseconds())/float64(b.N), "ms-sync/op")
			b.ReportMetric(heapTotal/float64(b.N)/(1<<20), "MiB-heap/op")
		})
	}
}

// BenchmarkReaderGet is one client.Reader Get (with its deep copy) from
// each cache.
func BenchmarkReaderGet(b *testing.B) {
	createBenchFoos(b)
	for _, mode := range []string{"controller-runtime", "informer-gen"} {
		b.Run(mode, func(b *testing.B) {
			c, stop := newBenchCache(b, mode)
			defer stop()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if _, err := c.GetInformer(ctx, &samplev1.Foo{}); err != nil {
				b.Fatal(err)
			}
			go func() { _ = c.Start(ctx) }()
			if !c.WaitForCacheSync(ctx) {
				b.Fatal("cache did not sync")
			}
			var got samplev1.Foo
			key := types.NamespacedName{Namespace: "bench", Name: "foo-1"}
			for b.Loop() {
				if err := c.Get(ctx, key, &got); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
