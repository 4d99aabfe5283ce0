package factory_test

import (
	"context"
	"testing"
	"testing/synctest"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// TestFactoryOverRuntimetestSource is how a user unit-tests a controller:
// the factory reads a runtimetest.Source instead of an API server, and the
// test drives it and waits for handlers without sleeping.
func TestFactoryOverRuntimetestSource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()},
			widget("ns", "a", "n1", nil), widget("ns", "b", "n2", nil))
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: src})
		f := factory.New(nil, opts)
		defer f.Shutdown()
		inf := factory.InformerFor(f, WidgetType)
		rec := new(runtimetest.Recorder[*lwt.Widget])
		if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}

		moved := widget("ns", "a", "n2", nil)
		if _, err := src.Update(moved); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Delete(widget("ns", "b", "", nil)); err != nil {
			t.Fatal(err)
		}
		want := src.Snapshot()
		if err := rec.WaitFor(ctx, func(got map[string]*lwt.Widget) bool {
			return runtimetest.SameResourceVersions(got, want)
		}); err != nil {
			t.Fatal(err)
		}
		if err := rec.Err(); err != nil {
			t.Fatal(err)
		}
		lister := store.NewLister(inf.Indexer(), lwt.GVR.GroupResource())
		onN2, _ := lister.Namespace("ns").ByIndex(nodeIndex, "n2")
		if len(onN2) != 1 || onN2[0].Name != "a" {
			t.Fatalf("ByIndex(node, n2) = %v, want just a (moved there; b deleted)", onN2)
		}
		if onN1, _ := lister.ByIndex(nodeIndex, "n1"); len(onN1) != 0 {
			t.Fatalf("ByIndex(node, n1) = %v, want none", onN1)
		}
	})
}

// One runtimetest.Source drives a kind's informer and its projection's in a
// factory: the projection's source is runtimetest.Project over the kind's,
// set with the projection's Type, so both caches follow every write.
func TestFactoryProjectionOverRuntimetestSource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()},
			widget("ns", "a", "n1", nil), widget("ns", "b", "n2", nil))
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: src})
		opts.Types = append(opts.Types, factory.TypeOptions[*WidgetSummary]{Type: WidgetSummaryType, ListerWatcher: runtimetest.Project[*WidgetSummary](src)})
		f := factory.New(nil, opts)
		defer f.Shutdown()
		widgets := factory.InformerFor(f, WidgetType)
		summaries := factory.InformerFor(f, WidgetSummaryType)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Update(widget("ns", "a", "n2", nil)); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Delete(widget("ns", "b", "", nil)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		a, _ := src.Get("ns/a")
		if got := summaries.Indexer().List(); len(got) != 1 || got[0].Name != "a" || got[0].Spec.NodeName != "n2" || got[0].ResourceVersion != a.ResourceVersion {
			t.Fatalf("projection cache %v, want only a, on n2, at resourceVersion %s", got, a.ResourceVersion)
		}
		if got := widgets.Indexer().List(); len(got) != 1 || got[0].ResourceVersion != a.ResourceVersion {
			t.Fatalf("kind cache %v, want only a at resourceVersion %s", got, a.ResourceVersion)
		}
		if onN2, _ := summaries.Indexer().ByIndex(nodeIndex, "n2"); len(onN2) != 1 {
			t.Fatalf("the projection's index on n2 = %v, want a", onN2)
		}
	})
}
