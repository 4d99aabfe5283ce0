package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	informersv1 "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1"
	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
)

// recorder is a reconciler that records the requests it got and what the
// generated Lister returned for each at that moment.
type recorder struct {
	mu   sync.Mutex
	seen map[types.NamespacedName]string // key -> spec.hostName read from the Lister
	read func(types.NamespacedName) (string, error)
}

func (r *recorder) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	host, err := r.read(req.NamespacedName)
	if err != nil {
		return reconcile.Result{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[req.NamespacedName] = host
	return reconcile.Result{}, nil
}

func (r *recorder) get(k types.NamespacedName) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.seen[k]
	return h, ok
}

// TestTypedSourceReconcile runs the generated factory under a manager
// (Runnable), feeds a controller from the generated Foo informer through the
// typed source with a typed predicate, and reads the generated Lister in
// Reconcile: warm on the first reconcile, since the manager starts the
// factory with its caches and waits for its sync before starting
// controllers.
func TestTypedSourceReconcile(t *testing.T) {
	ctx := context.Background()
	ns := "typed-source"
	c := newClient(t)
	// A Foo before the manager starts: it comes in the initial list.
	if err := c.Create(ctx, foo(ns, "early", "h0")); err != nil {
		t.Fatal(err)
	}

	mgr, err := ctrl.NewManager(server.Config(), managerOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	f := informers.NewSharedInformerFactory(server.Config(), factory.Options{Namespaces: []string{ns}})
	foos := f.Samplecontroller().V1().Foos()
	run, err := crinformers.Add(mgr, f, crinformers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.ReadyzCheck(nil); err == nil {
		t.Error("ReadyzCheck before Start: nil, want an error")
	}

	rec := &recorder{seen: map[types.NamespacedName]string{}}
	rec.read = func(k types.NamespacedName) (string, error) {
		obj, err := foos.Lister().Foos(k.Namespace).Get(k.Name)
		if apierrors.IsNotFound(err) {
			return "<deleted>", nil
		}
		if err != nil {
			return "", err
		}
		return obj.Spec.HostName, nil
	}
	var initial sync.Map
	skipped := predicate.NewTypedPredicateFuncs(func(o *samplev1.Foo) bool { return o.Labels["skip"] != "true" })
	err = ctrl.NewControllerManagedBy(mgr).
		Named("typed-source").
		WithOptions(controller.Options{MaxConcurrentReconciles: 1, SkipNameValidation: new(true)}).
		WatchesRawSource(crinformers.Kind(foos.Informer(),
			handler.TypedFuncs[*samplev1.Foo, reconcile.Request]{
				CreateFunc: func(ctx context.Context, e event.TypedCreateEvent[*samplev1.Foo], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
					initial.Store(e.Object.Name, e.IsInInitialList)
					q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: e.Object.Namespace, Name: e.Object.Name}})
				},
				UpdateFunc: func(ctx context.Context, e event.TypedUpdateEvent[*samplev1.Foo], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
					q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: e.ObjectNew.Namespace, Name: e.ObjectNew.Name}})
				},
				DeleteFunc: func(ctx context.Context, e event.TypedDeleteEvent[*samplev1.Foo], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
					q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: e.Object.Namespace, Name: e.Object.Name}})
				},
			}, skipped)).
		Complete(rec)
	if err != nil {
		t.Fatal(err)
	}
	startManager(t, mgr)

	early := types.NamespacedName{Namespace: ns, Name: "early"}
	eventually(t, patience, "reconcile of the initial Foo", func() error {
		if h, ok := rec.get(early); !ok || h != "h0" {
			return fmt.Errorf("seen %q %v, want h0", h, ok)
		}
		return nil
	})
	if v, _ := initial.Load("early"); v != true {
		t.Errorf("create event of the initial Foo: IsInInitialList = %v, want true", v)
	}
	if err := run.ReadyzCheck(nil); err != nil {
		t.Errorf("ReadyzCheck after sync: %v", err)
	}

	// The predicate drops the first; one worker and a FIFO queue mean it
	// would have been reconciled before the second.
	skip := foo(ns, "skip", "h1")
	skip.Labels = map[string]string{"skip": "true"}
	if err := c.Create(ctx, skip); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, foo(ns, "late", "h2")); err != nil {
		t.Fatal(err)
	}
	late := types.NamespacedName{Namespace: ns, Name: "late"}
	eventually(t, patience, "reconcile of a new Foo", func() error {
		if h, ok := rec.get(late); !ok || h != "h2" {
			return fmt.Errorf("seen %q %v, want h2", h, ok)
		}
		return nil
	})
	if _, ok := rec.get(types.NamespacedName{Namespace: ns, Name: "skip"}); ok {
		t.Error("a Foo the predicate rejects was reconciled")
	}
	if v, _ := initial.Load("late"); v != false {
		t.Errorf("create event of a new Foo: IsInInitialList = %v, want false", v)
	}

	// Update and delete reach Reconcile too.
	var obj samplev1.Foo
	if err := c.Get(ctx, late, &obj); err != nil {
		t.Fatal(err)
	}
	obj.Spec.HostName = "h3"
	if err := c.Update(ctx, &obj); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "reconcile of an update", func() error {
		if h, _ := rec.get(late); h != "h3" {
			return fmt.Errorf("seen %q, want h3", h)
		}
		return nil
	})
	if err := c.Delete(ctx, &obj); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "reconcile of a delete", func() error {
		if h, _ := rec.get(late); h != "<deleted>" {
			return fmt.Errorf("seen %q, want <deleted>", h)
		}
		return nil
	})
}

// TestSyncTimeoutSurfacesLastError: a factory whose informer cannot list
// (its CRD is not installed) makes the Runnable fail with the informer's
// last error once SyncTimeout passes, and readiness says why meanwhile.
func TestSyncTimeoutSurfacesLastError(t *testing.T) {
	f := factory.New(server.Config(), factory.Options{})
	gone := samplev1Type()
	gone.Resource.Resource = "notinstalleds"
	inf := factory.InformerFor(f, gone)
	r := crinformers.NewRunnable(f, crinformers.Options{SyncTimeout: 2 * time.Second, SyncLogPeriod: 500 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	// The informer's LIST has been refused before SyncTimeout starts, however
	// long that takes on a busy machine, so the timeout's error must carry
	// the 404, not a bare deadline (Start starts the factory again: a no-op
	// for a started informer).
	f.Start(ctx)
	eventually(t, patience, "the informer records the 404", func() error {
		if inf.LastError() == nil {
			return errors.New("no LastError yet")
		}
		return nil
	})
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		t.Fatal("Start did not return after SyncTimeout")
	}
	if err == nil || !apierrors.IsNotFound(err) {
		t.Fatalf("Start = %v, want an error wrapping the informer's 404", err)
	}
	if err := r.ReadyzCheck(nil); err == nil {
		t.Error("ReadyzCheck after a failed sync: nil")
	}
	if err := r.Start(ctx); err == nil {
		t.Error("second Start: nil error")
	}
}

func samplev1Type() factory.Type[*samplev1.Foo] {
	return factory.Type[*samplev1.Foo]{
		Resource:    samplev1.SchemeGroupVersion.WithResource("foos"),
		Namespaced:  true,
		AddToScheme: samplev1.AddToScheme,
	}
}

// TestCacheAdapterOneWatch runs controller-runtime's cache on the
// factory's informer: the manager's client.Reader (Get, List with a field
// index from IndexField), a For() controller and the generated Lister with
// its generated index all read one informer, fed by one WATCH.
func TestCacheAdapterOneWatch(t *testing.T) {
	ctx := context.Background()
	ns := "cache-adapter"
	c := newClient(t)
	for i := range 6 {
		if err := c.Create(ctx, foo(ns, fmt.Sprintf("foo-%d", i), fmt.Sprintf("h%d", i%2))); err != nil {
			t.Fatal(err)
		}
	}

	var counter requestCounter
	cfg := counter.config()
	f := informers.NewSharedInformerFactory(cfg, factory.Options{})
	shared := crinformers.NewSharedInformers(f.Factory)
	crinformers.Share(shared, informersv1.FooType)
	opts := managerOptions(t)
	opts.Cache = cache.Options{NewInformer: shared.NewInformer}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, &samplev1.Foo{}, "spec.hostName", func(o client.Object) []string {
		return []string{o.(*samplev1.Foo).Spec.HostName}
	}); err != nil {
		t.Fatal(err)
	}
	var reconciled sync.Map
	err = ctrl.NewControllerManagedBy(mgr).Named("cache-adapter").
		WithOptions(controller.Options{SkipNameValidation: new(true)}).
		For(&samplev1.Foo{}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			reconciled.Store(req.NamespacedName, true)
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	startManager(t, mgr)
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("manager cache did not sync")
	}

	reader := mgr.GetCache()
	var got samplev1.Foo
	if err := reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: "foo-3"}, &got); err != nil {
		t.Fatalf("cache Get: %v", err)
	}
	if got.Spec.HostName != "h1" {
		t.Errorf("cache Get foo-3: hostName %q, want h1", got.Spec.HostName)
	}
	var list samplev1.FooList
	if err := reader.List(ctx, &list, client.InNamespace(ns), client.MatchingFields{"spec.hostName": "h1"}); err != nil {
		t.Fatalf("cache List by field index: %v", err)
	}
	var fromReader []string
	for _, o := range list.Items {
		fromReader = append(fromReader, o.Name+"@"+o.ResourceVersion)
	}
	byHost, err := f.Samplecontroller().V1().Foos().Lister().Foos(ns).ByHost("h1")
	if err != nil {
		t.Fatalf("Lister ByHost: %v", err)
	}
	var fromLister []string
	for _, o := range byHost {
		fromLister = append(fromLister, o.Name+"@"+o.ResourceVersion)
	}
	slices.Sort(fromReader)
	slices.Sort(fromLister)
	if len(fromReader) != 3 || !slices.Equal(fromReader, fromLister) {
		t.Errorf("client.Reader List by spec.hostName = %v, Lister ByHost = %v; want the same 3 Foos", fromReader, fromLister)
	}
	// The same object, not a copy from a second cache: the Reader deep
	// copies what the shared informer's cache holds.
	shared0, _ := f.Samplecontroller().V1().Foos().Informer().Indexer().Get(ns + "/foo-3")
	if shared0 == nil || shared0.ResourceVersion != got.ResourceVersion || shared0 == &got {
		t.Errorf("the generated informer's cache holds %v, want foo-3 at resourceVersion %s", shared0, got.ResourceVersion)
	}

	// A Foo created now reaches the controller and both read paths.
	if err := c.Create(ctx, foo(ns, "foo-new", "h1")); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "reconcile and both reads of a new Foo", func() error {
		if _, ok := reconciled.Load(types.NamespacedName{Namespace: ns, Name: "foo-new"}); !ok {
			return errors.New("not reconciled")
		}
		if _, err := f.Samplecontroller().V1().Foos().Lister().Foos(ns).Get("foo-new"); err != nil {
			return err
		}
		return reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: "foo-new"}, &got)
	})
	if n := counter.watchesOf("foos"); n != 1 {
		t.Errorf("WATCH requests for foos = %d, want 1 (one informer for the Reader, the controller and the Lister)", n)
	}
}
