package factory_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/runtime/schema"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// GadgetType is a second resource served with the same Go type, so that a
// factory has two informers of which one is removed.
var GadgetType = factory.Type[*lwt.Widget]{
	Resource:    schema.GroupVersionResource{Group: lwt.GVR.Group, Version: lwt.GVR.Version, Resource: "gadgets"},
	Namespaced:  true,
	AddToScheme: lwt.AddToScheme,
	Kind:        "Widget",
}

// TestRemoveInformer: removing one informer stops it (its handlers learn
// it through Registration.Stopped, its goroutines exit: goleak and
// synctest would report them), leaves the other running, and a later
// InformerFor starts a fresh informer that lists the current state.
func TestRemoveInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		widgets := runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()}, widget("ns", "a", "n1", nil))
		gadgets := runtimetest.NewSource(runtimetest.SourceOptions{Resource: GadgetType.Resource.GroupResource()}, widget("ns", "g", "n1", nil))
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: widgets})
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: GadgetType, ListerWatcher: gadgets})
		f := factory.New(nil, opts)
		defer f.Shutdown()
		winf := factory.InformerFor(f, WidgetType)
		ginf := factory.InformerFor(f, GadgetType)
		wrec := new(runtimetest.Recorder[*lwt.Widget])
		wreg, err := winf.AddHandler(wrec, informer.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		grec := new(runtimetest.Recorder[*lwt.Widget])
		if _, err := ginf.AddHandler(grec, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}

		if _, err := f.RemoveInformerOf(&lwt.Widget{}); err == nil {
			t.Fatal("RemoveInformerOf a type two informers have: no error")
		}
		if !f.RemoveInformer(WidgetType) {
			t.Fatal("RemoveInformer found no informer")
		}
		select {
		case <-wreg.Stopped():
		default:
			t.Fatal("the removed informer's handler was not stopped when RemoveInformer returned")
		}
		if f.RemoveInformer(WidgetType) {
			t.Fatal("second RemoveInformer found an informer")
		}
		if n := len(f.Informers()); n != 1 {
			t.Fatalf("factory lists %d informers after the removal, want 1", n)
		}

		// The other informer still runs.
		if _, err := gadgets.Update(widget("ns", "g", "n2", nil)); err != nil {
			t.Fatal(err)
		}
		want := gadgets.Snapshot()
		if err := grec.WaitFor(ctx, func(got map[string]*lwt.Widget) bool {
			return runtimetest.SameResourceVersions(got, want)
		}); err != nil {
			t.Fatal(err)
		}

		// A change made while no informer runs is in the fresh one's list.
		if _, err := widgets.Add(widget("ns", "b", "n1", nil)); err != nil {
			t.Fatal(err)
		}
		fresh := factory.InformerFor(f, WidgetType)
		if fresh == winf {
			t.Fatal("InformerFor after RemoveInformer returned the removed informer")
		}
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if n := fresh.Indexer().Len(); n != 2 {
			t.Fatalf("fresh informer has %d objects, want 2", n)
		}
		if n := winf.Indexer().Len(); n != 1 {
			t.Fatalf("removed informer's cache changed to %d objects", n)
		}
		if ok, err := f.RemoveInformerOf(&lwt.Widget{}); err == nil || ok {
			t.Fatalf("RemoveInformerOf with two informers of the type = %v, %v", ok, err)
		}
		if !f.RemoveInformer(GadgetType) {
			t.Fatal("RemoveInformer(GadgetType) found no informer")
		}
		if ok, err := f.RemoveInformerOf(&lwt.Widget{}); err != nil || !ok {
			t.Fatalf("RemoveInformerOf the last Widget informer = %v, %v", ok, err)
		}
		if n := len(f.Informers()); n != 0 {
			t.Fatalf("factory lists %d informers after removing all", n)
		}
	})
}

// TestRemoveInformerNotStarted: an informer that never ran is just dropped.
func TestRemoveInformerNotStarted(t *testing.T) {
	f := factory.New(nil, factory.Options{})
	defer f.Shutdown()
	first := factory.InformerFor(f, WidgetType)
	if !f.RemoveInformer(WidgetType) {
		t.Fatal("RemoveInformer found no informer")
	}
	if factory.InformerFor(f, WidgetType) == first {
		t.Fatal("InformerFor returned the removed informer")
	}
}

// TestRemoveInformerRacesShutdownAndInformerFor: removals, re-creations
// and Shutdown at once neither hang nor leave goroutines behind (synctest
// reports a deadlock, goleak a leak).
func TestRemoveInformerRacesShutdownAndInformerFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.PerNamespace(factory.TypeOptions[*lwt.Widget]{Type: WidgetType}, func(string) reflector.ListerWatcher[*lwt.Widget] {
			return runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()}, widget("ns", "a", "n1", nil))
		}))
		f := factory.New(nil, opts)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 20 {
					factory.InformerFor(f, WidgetType)
					f.RemoveInformer(WidgetType)
				}
			})
		}
		wg.Go(f.Shutdown)
		wg.Wait()
		f.Shutdown()
	})
}

// TestRunInformerOwnsOneInformer: RunInformer starts only its type's
// informer, and ending its context stops and removes that informer alone
// (controller-runtime's cache runs each informer with a context of its own
// and cancels it on RemoveInformer); an informer the factory's Start runs
// is not stopped by a RunInformer context.
func TestRunInformerOwnsOneInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		widgets := runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()}, widget("ns", "a", "n1", nil))
		gadgets := runtimetest.NewSource(runtimetest.SourceOptions{Resource: GadgetType.Resource.GroupResource()}, widget("ns", "g", "n1", nil))
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: widgets})
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: GadgetType, ListerWatcher: gadgets})
		f := factory.New(nil, opts)
		defer f.Shutdown()
		winf := factory.InformerFor(f, WidgetType)
		ginf := factory.InformerFor(f, GadgetType)
		wreg, err := winf.AddHandler(new(runtimetest.Recorder[*lwt.Widget]), informer.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		grec := new(runtimetest.Recorder[*lwt.Widget])
		greg, err := ginf.AddHandler(grec, informer.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}

		wctx, wcancel := context.WithCancel(t.Context())
		gctx, gcancel := context.WithCancel(t.Context())
		defer gcancel()
		var wg sync.WaitGroup
		wg.Go(func() { f.RunInformer(wctx, WidgetType) })
		synctest.Wait()
		if !winf.HasSynced() {
			t.Fatal("RunInformer did not start its informer")
		}
		if ginf.HasSynced() {
			t.Fatal("RunInformer of widgets started the gadgets informer too")
		}
		wg.Go(func() { f.RunInformer(gctx, GadgetType) })
		synctest.Wait()
		if !ginf.HasSynced() {
			t.Fatal("RunInformer did not start the gadgets informer")
		}

		// Ending widgets' context stops and removes widgets only.
		wcancel()
		synctest.Wait()
		select {
		case <-wreg.Stopped():
		default:
			t.Fatal("the widgets informer's handler was not stopped when its context ended")
		}
		select {
		case <-greg.Stopped():
			t.Fatal("ending the widgets informer's context stopped the gadgets informer")
		default:
		}
		if n := len(f.Informers()); n != 1 {
			t.Fatalf("factory lists %d informers after widgets' context ended, want 1", n)
		}
		if _, err := gadgets.Update(widget("ns", "g", "n2", nil)); err != nil {
			t.Fatal(err)
		}
		want := gadgets.Snapshot()
		if err := grec.WaitFor(gctx, func(got map[string]*lwt.Widget) bool {
			return runtimetest.SameResourceVersions(got, want)
		}); err != nil {
			t.Fatal(err)
		}

		// An informer the factory's Start runs outlives a RunInformer context.
		fresh := factory.InformerFor(f, WidgetType)
		sctx, scancel := context.WithCancel(t.Context())
		defer scancel()
		f.Start(sctx)
		rctx, rcancel := context.WithCancel(t.Context())
		wg.Go(func() { f.RunInformer(rctx, WidgetType) })
		synctest.Wait()
		rcancel()
		synctest.Wait()
		if factory.InformerFor(f, WidgetType) != fresh || !fresh.HasSynced() {
			t.Fatal("a RunInformer context stopped or removed an informer the factory's Start runs")
		}
		gcancel()
		wg.Wait()
	})
}
