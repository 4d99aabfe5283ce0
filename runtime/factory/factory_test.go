package factory_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

const nodeIndex = "node"

// WidgetType is what informer-gen would emit for Widget.
var WidgetType = factory.Type[*lwt.Widget]{
	Resource:    lwt.GVR,
	Namespaced:  true,
	AddToScheme: lwt.AddToScheme,
	Indexers: func() store.Indexers[*lwt.Widget] {
		return store.Indexers[*lwt.Widget]{nodeIndex: func(w *lwt.Widget) ([]string, error) {
			return store.Values(w.Spec.NodeName), nil
		}}
	},
}

func widget(ns, name, node string, lbls map[string]string) *lwt.Widget {
	w := &lwt.Widget{Spec: lwt.WidgetSpec{NodeName: node}}
	w.Namespace, w.Name, w.Labels = ns, name, lbls
	return w
}

// deadline bounds a test that talks HTTP; it is a safety net against hangs,
// never an assertion about speed.
func deadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestFactoryEndToEndOverREST(t *testing.T) {
	srv := lwt.NewServer(t)
	srv.Add(widget("ns1", "a", "n1", map[string]string{"app": "x"}))
	srv.Add(widget("ns1", "b", "n2", map[string]string{"app": "y"}))
	srv.Add(widget("ns2", "c", "n1", nil))
	ctx := deadline(t)

	f := factory.New(srv.Config(), factory.Options{HTTPClient: srv.HTTPClient()})
	defer f.Shutdown()
	inf := factory.InformerFor(f, WidgetType)
	if again := factory.InformerFor(f, WidgetType); again != inf {
		t.Fatal("InformerFor returned a second informer for the same type")
	}
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := inf.Indexer().Len(); n != 3 {
		t.Fatalf("cache has %d widgets, want 3", n)
	}
	onN1, err := inf.Indexer().ByIndex(nodeIndex, "n1")
	if err != nil || len(onN1) != 2 {
		t.Fatalf("ByIndex(node, n1) = %d items, %v; want 2 (the Type's indexers must be added)", len(onN1), err)
	}

	g, err := f.ForResource(lwt.GVR)
	if err != nil {
		t.Fatal(err)
	}
	if g.Resource() != lwt.GVR || !g.Informer().HasSynced() {
		t.Fatalf("generic informer: resource %v synced %v", g.Resource(), g.Informer().HasSynced())
	}
	all, _ := g.Lister().List(labels.Everything())
	if len(all) != 3 {
		t.Fatalf("generic List = %d objects, want 3", len(all))
	}
	sel := labels.SelectorFromSet(labels.Set{"app": "y"})
	if got, _ := g.Lister().ByNamespace("ns1").List(sel); len(got) != 1 || got[0].(*lwt.Widget).Name != "b" {
		t.Fatalf("generic ByNamespace(ns1).List(app=y) = %v", got)
	}
	if obj, err := g.Lister().Get("ns2/c"); err != nil || obj.(*lwt.Widget).Name != "c" {
		t.Fatalf("generic Get(ns2/c) = %v, %v", obj, err)
	}
	if _, err := g.Lister().ByNamespace("ns2").Get("a"); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of a missing object: %v, want NotFound", err)
	}

	// A handler through the untyped view sees watch events as *Widget.
	added := make(chan runtime.Object, 10)
	reg, err := g.Informer().AddHandler(informer.HandlerFuncs[runtime.Object]{
		AddFunc: func(obj runtime.Object, initial bool) {
			if !initial {
				added <- obj
			}
		},
	}, informer.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := informer.WaitForCacheSync(ctx, reg); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitForWatchers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	srv.Add(widget("ns3", "d", "n3", nil))
	select {
	case obj := <-added:
		if w, ok := obj.(*lwt.Widget); !ok || w.Name != "d" {
			t.Fatalf("handler got %#v, want widget d", obj)
		}
	case <-ctx.Done():
		t.Fatal("handler never saw the added widget")
	}
	f.Shutdown()
	f.Shutdown() // idempotent
}

func TestInformerForAfterStartIsStarted(t *testing.T) {
	srv := lwt.NewServer(t)
	srv.Add(widget("ns1", "a", "", nil))
	srv.RefuseWatchList(true) // and the informer falls back to LIST + WATCH
	ctx := deadline(t)
	f := factory.New(srv.Config(), factory.Options{HTTPClient: srv.HTTPClient()})
	defer f.Shutdown()
	f.Start(ctx)
	inf := factory.InformerFor(f, WidgetType)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	if inf.Indexer().Len() != 1 {
		t.Fatalf("late informer cache has %d objects, want 1", inf.Indexer().Len())
	}
	var lists int
	for _, r := range srv.Requests() {
		if r.URL.Query().Get("watch") != "true" {
			lists++
		}
	}
	if lists == 0 {
		t.Fatal("no LIST after the server refused WatchList")
	}
}

func TestOptionsReachRequests(t *testing.T) {
	srv := lwt.NewServer(t)
	srv.Add(widget("team-a", "a", "", map[string]string{"tier": "web"}))
	srv.Add(widget("team-a", "b", "", map[string]string{"tier": "db"}))
	srv.Add(widget("team-b", "c", "", map[string]string{"tier": "web"}))
	ctx := deadline(t)
	ns, sel := "team-a", "tier=web"
	noWatchList := false
	f := factory.New(srv.Config(), factory.Options{
		HTTPClient:    srv.HTTPClient(),
		Reflector:     reflector.Options{WatchList: &noWatchList, PageSize: 1},
		Namespaces:    []string{"ignored-by-override"},
		LabelSelector: "ignored=true",
		FieldSelector: "metadata.name!=zzz",
		Types: []factory.TypeOverride{
			factory.TypeOptions[*lwt.Widget]{Type: WidgetType, Namespaces: []string{ns}, LabelSelector: &sel},
		},
		Transform: func(o runtime.Object) (runtime.Object, error) {
			w := o.(*lwt.Widget)
			w.Annotations = map[string]string{"transformed": "yes"}
			return w, nil
		},
	})
	defer f.Shutdown()
	inf := factory.InformerFor(f, WidgetType)
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	keys := inf.Indexer().ListKeys()
	if len(keys) != 1 || keys[0] != "team-a/a" {
		t.Fatalf("cached keys %v, want [team-a/a]", keys)
	}
	if w, _ := inf.Indexer().Get("team-a/a"); w.Annotations["transformed"] != "yes" {
		t.Fatalf("factory-wide transform not applied: %v", w.Annotations)
	}
	for _, r := range srv.Requests() {
		if r.URL.Query().Get("sendInitialEvents") != "" {
			t.Errorf("request %v: WatchList used though Options.Reflector.WatchList is false", r.URL.RawQuery)
		}
		if r.URL.Query().Get("watch") != "true" && r.URL.Query().Get("limit") != "1" {
			t.Errorf("LIST %v: Options.Reflector.PageSize not used", r.URL.Query())
		}
		if r.URL.Path != "/apis/test.informer-gen.dev/v1/namespaces/team-a/widgets" {
			t.Errorf("request path %q: per-type namespace not used", r.URL.Path)
		}
		if r.URL.Query().Get("labelSelector") != "tier=web" || r.URL.Query().Get("fieldSelector") != "metadata.name!=zzz" {
			t.Errorf("request query %v: want per-type label selector and factory-wide field selector", r.URL.Query())
		}
	}
}

// fakeLW is a reflector.ListerWatcher that serves a fixed list (or an error)
// and a watch that stays open until ctx ends.
type fakeLW struct {
	items []*lwt.Widget
	err   error
	lists *atomic.Int32 // counts List calls when not nil
}

func (l fakeLW) List(context.Context, metav1.ListOptions) (*reflector.ListResult[*lwt.Widget], error) {
	if l.lists != nil {
		l.lists.Add(1)
	}
	if l.err != nil {
		return nil, l.err
	}
	return &reflector.ListResult[*lwt.Widget]{Items: l.items, ResourceVersion: "1"}, nil
}

func (l fakeLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if l.err != nil {
		return nil, l.err
	}
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		return nil, apierrors.NewBadRequest("no WatchList here")
	}
	w := watch.NewFake()
	context.AfterFunc(ctx, w.Stop)
	return w, nil
}

func TestTypeListerWatcherNeedsNoServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := widget("ns", "a", "n1", nil)
		a.ResourceVersion = "1"
		opts := factory.Options{}
		var sawOpts bool
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{
			Type:          WidgetType,
			ListerWatcher: fakeLW{items: []*lwt.Widget{a}},
			Informer: func(o *informer.Options[*lwt.Widget]) {
				sawOpts = o.Reflector.Name == "widgets.v1.test.informer-gen.dev" // set before, so fn may override it
			},
		})
		f := factory.New(nil, opts) // no rest.Config at all
		inf := factory.InformerFor(f, WidgetType)
		if !sawOpts {
			t.Fatal("TypeOptions.Informer not called")
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := inf.Indexer().ByIndex(nodeIndex, "n1"); len(got) != 1 {
			t.Fatalf("ByIndex = %v", got)
		}
		f.Shutdown()
	})
}

func TestWaitForCacheSyncNamesTheFailingResource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		forbidden := apierrors.NewForbidden(lwt.GVR.GroupResource(), "", errors.New("rbac says no"))
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: (fakeLW{err: forbidden})})
		f := factory.New(nil, opts)
		factory.InformerFor(f, WidgetType)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		f.Start(t.Context())
		err := f.WaitForCacheSync(ctx)
		if err == nil {
			t.Fatal("WaitForCacheSync = nil with a source that always fails")
		}
		if !strings.Contains(err.Error(), "widgets.v1.test.informer-gen.dev") {
			t.Errorf("error %q does not name the resource", err)
		}
		if !apierrors.IsForbidden(err) {
			t.Errorf("error %q does not wrap the 403", err)
		}
		f.Shutdown()
	})
}

func TestNoConfigIsReportedNotPanicked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := factory.New(nil, factory.Options{})
		factory.InformerFor(f, WidgetType)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		f.Start(t.Context())
		err := f.WaitForCacheSync(ctx)
		if err == nil || !strings.Contains(err.Error(), "no rest.Config") {
			t.Fatalf("WaitForCacheSync = %v, want an error about the missing rest.Config", err)
		}
		f.Shutdown()
	})
}

func TestForResourceUnknown(t *testing.T) {
	f := factory.New(nil, factory.Options{})
	if _, err := f.ForResource(lwt.GVR); err == nil {
		t.Fatal("ForResource of an unregistered resource = nil error")
	}
	opts := factory.Options{}
	opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: (fakeLW{})})
	f = factory.New(nil, opts)
	if _, err := f.ForResource(lwt.GVR, factory.Resources{lwt.GVR: WidgetType}); err != nil {
		t.Fatalf("ForResourceIn with a table that has it: %v", err)
	}
	if _, err := f.ForResource(lwt.GVR); err != nil {
		t.Fatalf("ForResource after ForResourceIn: %v", err)
	}
}

func TestShutdownStopsEverythingAndStartAfterIsNoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gadgets := WidgetType
		gadgets.Resource.Resource = "gadgets"
		var widgetLists, gadgetLists atomic.Int32
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: (fakeLW{lists: &widgetLists})})
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: gadgets, ListerWatcher: (fakeLW{lists: &gadgetLists})})
		f := factory.New(nil, opts)
		factory.InformerFor(f, WidgetType)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 { // concurrent Shutdowns all wait for the informers
			wg.Go(f.Shutdown)
		}
		wg.Wait()
		// After Shutdown nothing starts: neither a late informer nor Start.
		factory.InformerFor(f, gadgets)
		f.Start(ctx)
		synctest.Wait()
		if n := gadgetLists.Load(); n != 0 {
			t.Fatalf("an informer created after Shutdown listed %d times", n)
		}
		if n := widgetLists.Load(); n != 1 {
			t.Fatalf("widgets listed %d times, want 1", n)
		}
	})
}

func TestClusterScopedTypeIgnoresNamespace(t *testing.T) {
	srv := lwt.NewServer(t)
	srv.Add(widget("", "cluster-wide", "", nil))
	ctx := deadline(t)
	clusterType := WidgetType
	clusterType.Namespaced = false
	f := factory.New(srv.Config(), factory.Options{HTTPClient: srv.HTTPClient(), Namespaces: []string{"team-a"}})
	defer f.Shutdown()
	inf := factory.InformerFor(f, clusterType)
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := inf.Indexer().Get("cluster-wide"); !ok {
		t.Fatalf("cluster-scoped object not cached under its name; keys %v", inf.Indexer().ListKeys())
	}
	g, err := f.ForResource(lwt.GVR)
	if err != nil {
		t.Fatal(err)
	}
	if obj, err := g.Lister().Get("cluster-wide"); err != nil || obj.(*lwt.Widget).Name != "cluster-wide" {
		t.Fatalf("generic Get(cluster-wide) = %v, %v", obj, err)
	}
	for _, r := range srv.Requests() {
		if r.URL.Path != "/apis/test.informer-gen.dev/v1/widgets" {
			t.Errorf("request path %q: a cluster-scoped type must not be namespaced", r.URL.Path)
		}
	}
}
