package controller_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	v1informers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1"
)

// holdIndex adds to the informer of opts.Type an index that blocks the informer's pop
// loop while it applies an object for which held returns true, until the
// returned release is called: the watch has delivered the write, the cache
// has not applied it (and holds its write lock: reads of it block too).
func holdIndex[T store.Object[T]](opts *factory.TypeOptions[T], held func(T) bool) (release func()) {
	block := make(chan struct{})
	var once sync.Once
	var blocked atomic.Bool
	opts.Informer = func(o *informer.Options[T]) {
		if o.Indexers == nil {
			o.Indexers = store.Indexers[T]{}
		}
		o.Indexers["hold"] = func(obj T) ([]string, error) {
			if held(obj) && blocked.CompareAndSwap(false, true) {
				<-block
			}
			return nil, nil
		}
	}
	return func() { once.Do(func() { close(block) }) }
}

// TestGeneratedListerGetAtLeast reads through the generated listers'
// GetAtLeast: a read for the resourceVersion a write returned waits while
// the cache has not applied that write (the pop loop is held in the middle
// of applying it), then returns the written object; a delete's
// resourceVersion returns NotFound; ctx bounds the wait; a malformed
// resourceVersion fails at once. Namespaced (Foo, through FooNamespaceLister)
// and cluster-scoped (Host, through HostLister).
func TestGeneratedListerGetAtLeast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		foos := runtimetest.NewSource(runtimetest.SourceOptions{},
			&samplev1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Spec: samplev1.FooSpec{Replicas: 1, HostName: "h1"}})
		hosts := runtimetest.NewSource(runtimetest.SourceOptions{},
			&samplev1.Host{ObjectMeta: metav1.ObjectMeta{Name: "h1"}, Spec: samplev1.HostSpec{Capacity: 1}})
		fooOpts := factory.TypeOptions[*samplev1.Foo]{Type: v1informers.FooType, ListerWatcher: foos}
		hostOpts := factory.TypeOptions[*samplev1.Host]{Type: v1informers.HostType, ListerWatcher: hosts}
		releaseFoo := holdIndex(&fooOpts, func(f *samplev1.Foo) bool { return f.Spec.Replicas == 7 })
		releaseHost := holdIndex(&hostOpts, func(h *samplev1.Host) bool { return h.Spec.Capacity == 7 })
		defer releaseFoo()
		defer releaseHost()
		f := informers.NewSharedInformerFactory(nil, factory.Options{Types: []factory.TypeOverride{fooOpts, hostOpts}})
		defer f.Shutdown()
		v1 := f.Samplecontroller().V1()
		fooLister, hostLister := v1.Foos().Lister(), v1.Hosts().Lister()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // every informer idle: nothing but the held write takes the informer's lock

		// Namespaced: the read waits for the update it names.
		a, _ := foos.Get("ns/a")
		a = a.DeepCopy()
		a.Spec.Replicas = 7
		upd, err := foos.Update(a)
		if err != nil {
			t.Fatal(err)
		}
		var got *samplev1.Foo
		var gotErr error
		var returned atomic.Bool
		go func() {
			got, gotErr = fooLister.Foos("ns").GetAtLeast(ctx, "a", upd.ResourceVersion)
			returned.Store(true)
		}()
		synctest.Wait() // the pop loop holds the update; the reader waits
		if returned.Load() {
			t.Fatalf("Foos(ns).GetAtLeast(a, %s) returned (%v, %v) before the cache applied that resourceVersion", upd.ResourceVersion, got, gotErr)
		}
		releaseFoo()
		synctest.Wait()
		if !returned.Load() {
			t.Fatal("Foos(ns).GetAtLeast did not return after the cache applied the update")
		}
		if gotErr != nil || got.ResourceVersion != upd.ResourceVersion || got.Spec.Replicas != 7 {
			t.Fatalf("Foos(ns).GetAtLeast(a, %s) = (%v, %v), want the update", upd.ResourceVersion, got, gotErr)
		}

		// A delete's resourceVersion: NotFound once the delete is applied.
		del, err := foos.Delete(upd)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fooLister.Foos("ns").GetAtLeast(ctx, "a", del.ResourceVersion); !apierrors.IsNotFound(err) {
			t.Fatalf("Foos(ns).GetAtLeast(a, %s) after the delete: %v, want NotFound", del.ResourceVersion, err)
		}

		// Cluster-scoped: the same through HostLister.GetAtLeast.
		h, _ := hosts.Get("h1")
		h = h.DeepCopy()
		h.Spec.Capacity = 7
		hupd, err := hosts.Update(h)
		if err != nil {
			t.Fatal(err)
		}
		var gotHost *samplev1.Host
		var hostErr error
		returned.Store(false)
		go func() {
			gotHost, hostErr = hostLister.GetAtLeast(ctx, "h1", hupd.ResourceVersion)
			returned.Store(true)
		}()
		synctest.Wait()
		if returned.Load() {
			t.Fatalf("HostLister.GetAtLeast(h1, %s) returned (%v, %v) before the cache applied it", hupd.ResourceVersion, gotHost, hostErr)
		}
		releaseHost()
		synctest.Wait()
		if !returned.Load() || hostErr != nil || gotHost.Spec.Capacity != 7 || gotHost.ResourceVersion != hupd.ResourceVersion {
			t.Fatalf("HostLister.GetAtLeast(h1, %s) = (%v, %v, returned %v), want the update", hupd.ResourceVersion, gotHost, hostErr, returned.Load())
		}

		// ctx bounds the wait for a resourceVersion nothing reaches.
		short, cancelShort := context.WithCancel(ctx)
		cancelShort()
		if _, err := hostLister.GetAtLeast(short, "h1", "1000000"); !errors.Is(err, context.Canceled) {
			t.Fatalf("GetAtLeast with a cancelled ctx: %v, want context.Canceled", err)
		}
		// A malformed resourceVersion is an error at once, never a guess.
		if _, err := fooLister.Foos("ns").GetAtLeast(ctx, "a", "01"); !errors.Is(err, store.ErrNotComparable) {
			t.Fatalf("GetAtLeast(a, 01): %v, want store.ErrNotComparable", err)
		}
		cancel()
	})
}
