package docsnippets_test

import (
	"context"
	"os"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	v1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1alpha1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	v1informers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1"
	v1alpha1informers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1alpha1"
	v1listers "github.com/informer-gen/informer-gen/examples/crd/generated/listers/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/freshness"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/shard"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// README.md, "Five-minute tour", Use.
func readmeUse(ctx context.Context, restConfig *rest.Config, queue *workqueue.Queue[string]) error {
	// doc:begin readme-use
	f := informers.NewSharedInformerFactory(restConfig, factory.Options{})
	foos := f.Samplecontroller().V1alpha1().Foos()
	if _, err := foos.Informer().AddHandler(informer.HandlerFuncs[*v1alpha1.Foo]{
		AddFunc: func(foo *v1alpha1.Foo, initial bool) { queue.Add(store.Key(foo)) },
	}, informer.HandlerOptions{}); err != nil {
		return err
	}
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		return err // names the resource and, e.g., the 403
	}
	foo, err := foos.Lister().Foos("default").Get("example")
	// doc:end readme-use
	_ = foo
	return err
}

// README.md, "Five-minute tour", Scope per type; docs/generated-code.md, the
// factory.
func readmeTypes(cfg *rest.Config) *informers.SharedInformerFactory {
	// doc:begin readme-types
	opts := factory.Options{Types: []factory.TypeOverride{
		factory.TypeOptions[*v1alpha1.Foo]{Type: v1alpha1informers.FooType, Namespaces: []string{"team-a", "team-b"}},
	}}
	// doc:end readme-types
	// doc:begin generated-factory
	f := informers.NewSharedInformerFactory(cfg, factory.Options{
		Types: []factory.TypeOverride{
			factory.TypeOptions[*v1alpha1.Foo]{Type: v1alpha1informers.FooType, Namespaces: []string{"team-a", "team-b"}},
		},
	})
	// doc:end generated-factory
	_ = opts
	return f
}

// docs/guide.md, "Options, and how to choose them".
func guideOptions(cfg *rest.Config, sel string) *informers.SharedInformerFactory {
	// doc:begin guide-options
	opts := factory.Options{
		Namespaces: []string{"team-a", "team-b"},
		Types: []factory.TypeOverride{
			factory.TypeOptions[*v1alpha1.Foo]{Type: v1alpha1informers.FooType, LabelSelector: &sel},
		},
	}
	f := informers.NewSharedInformerFactory(cfg, opts)
	// doc:end guide-options
	return f
}

// docs/guide.md, "Reading your own writes": GetAtLeast.
func guideGetAtLeast(ctx context.Context, client rest.Interface, fooLister v1listers.FooLister, foo *v1.Foo, ns, name string) (*v1.Foo, error) {
	// doc:begin guide-getatleast
	var written v1.Foo
	if err := client.Put().Namespace(ns).Resource("foos").Name(name).Body(foo).Do(ctx).Into(&written); err != nil {
		return nil, err
	}
	// ... the next reconcile of ns/name:
	fresh, err := fooLister.Foos(ns).GetAtLeast(ctx, name, written.ResourceVersion) // never older than the write
	// doc:end guide-getatleast
	return fresh, err
}

// docs/guide.md, "Reading your own writes": runtime/freshness.
func guideFreshness(ctx context.Context, client rest.Interface, fooInformer *informer.Informer[*v1.Foo], q *workqueue.Queue[string], s *shard.Shard,
	m freshness.Metrics, reconcile func(context.Context, string) error, key, ns, name string, foo *v1.Foo, workers int) error {
	// doc:begin guide-freshness
	own := &freshness.Tracker[string]{Metrics: m} // m: optional hooks
	foos := freshness.Resource{Name: "foos", Cache: fooInformer.Indexer()}

	// in reconcile, after a successful write:
	var written v1.Foo
	if err := client.Put().Namespace(ns).Resource("foos").Name(name).Body(foo).Do(ctx).Into(&written); err != nil {
		return err
	}
	if err := own.Wrote(key, foos, &written); err != nil {
		return err // a resourceVersion that cannot be compared (KEP-5504)
	}

	// the worker loop:
	q.Run(ctx, workers, own.Reconciler(q.Add, reconcile))
	// sharded (s is the *shard.Shard): ownership first, then freshness, then the reconcile
	q.Run(ctx, workers, s.Reconciler(own.Reconciler(q.Add, reconcile)))
	// doc:end guide-freshness
	return nil
}

// docs/guide.md, "Priorities in the work queue".
func guideWorkqueue(ctx context.Context, fooInformer *informer.Informer[*v1.Foo], reconcile func(context.Context, string) error) error {
	// doc:begin guide-workqueue
	q := workqueue.New(workqueue.Options[string]{Name: "foo-controller"})
	reg, err := fooInformer.AddHandler(workqueue.Handler[*v1.Foo, string]{
		Queue: q,
		Key:   func(f *v1.Foo) string { return f.Namespace + "/" + f.Name },
	}, informer.HandlerOptions{})
	// ... start the factory, wait for reg.HasSynced
	q.Run(ctx, 4, reconcile)
	// doc:end guide-workqueue
	_ = reg
	return err
}

// docs/guide.md, "Stopping one informer".
func guideRemove(f *informers.SharedInformerFactory) error {
	// doc:begin guide-remove
	removed := f.RemoveInformer(v1informers.FooType) // by its Type
	removed, err := f.RemoveInformerOf(&v1.Foo{})    // or by an object of its Go type
	// doc:end guide-remove
	_ = removed
	return err
}

// docs/sharding.md, "Using it".
func shardingSetup(ctx context.Context, cfg *rest.Config, f *informers.SharedInformerFactory, reconcile func(context.Context, string) error) error {
	// doc:begin sharding-setup
	// The Leases of group foo-controller in kube-system, over coordination.k8s.io/v1.
	leases, source, err := shard.NewLeases(cfg, nil, "kube-system", "foo-controller")
	if err != nil {
		return err
	}
	s, err := shard.New(shard.Options{
		Group:    "foo-controller",      // same on every replica
		Identity: os.Getenv("POD_NAME"), // unique per live replica
		Leases:   leases,
		Source:   source,
		// LeaseDuration 15s, RenewDeadline 10s, RetryPeriod 2s by default
	})
	if err != nil {
		return err
	}

	inf := f.Samplecontroller().V1().Foos().Informer() // f: the generated factory
	q := workqueue.New(workqueue.Options[string]{Name: "foos"})
	enqueue := func(f *v1.Foo) { q.Add(store.Key(f)) }
	if _, err := inf.AddHandler(shard.Filter(s, informer.HandlerFuncs[*v1.Foo]{
		AddFunc:    func(f *v1.Foo, _ bool) { enqueue(f) },
		UpdateFunc: func(_, f *v1.Foo) { enqueue(f) },
		DeleteFunc: func(f *v1.Foo, _ bool) { enqueue(f) },
	}), informer.HandlerOptions{}); err != nil {
		return err
	}

	go s.Run(ctx) // blocks until ctx ends; releases the Lease on the way out
	f.Start(ctx)
	if err := informer.WaitForCacheSync(ctx, inf, s); err != nil { // a Shard is Syncable: first handover done
		return err
	}
	q.Run(ctx, 4, s.Reconciler(reconcile)) // skips keys this replica does not own
	// doc:end sharding-setup
	return nil
}

// docs/sharding.md, "The server selects".
func shardingByUID(ctx context.Context, cfg *rest.Config, fooClient rest.Interface, leases shard.LeaseClient, source reflector.ListerWatcher[*coordinationv1.Lease], logger klog.Logger) error {
	// doc:begin sharding-byuid
	s, err := shard.New(shard.Options{Group: "foo-controller", Identity: os.Getenv("POD_NAME"), Leases: leases, Source: source, ByUID: true})
	if err != nil {
		return err
	}
	opts := factory.Options{}
	if ok, err := shard.ServerSelects(ctx, fooClient, "", "foos"); err == nil && ok {
		opts.Tweak = s.Tweak                      // shardSelector on every LIST and WATCH
		opts.Reflector.Relist = s.RelistTrigger() // relist when the selector changes
	} else {
		logger.Info("shardSelector not honoured: every replica caches every Foo", "err", err)
	}
	f := informers.NewSharedInformerFactory(cfg, opts)
	// Filter and Reconciler as before.
	go s.Run(ctx)
	if err := informer.WaitForCacheSync(ctx, s); err != nil { // first assignment: the first LIST is already of the shard
		return err
	}
	f.Start(ctx)
	// doc:end sharding-byuid
	return nil
}

// docs/guide.md, "Many clusters".
func guideFleet(ctx context.Context) {
	// doc:begin guide-fleet
	q := workqueue.New(workqueue.Options[fleet.Key]{Name: "foos"})
	fl := fleet.New(fleet.Options[*informers.SharedInformerFactory]{
		NewFactory: informers.NewSharedInformerFactory,
		Providers:  []fleet.Provider{fleet.KubeconfigDir{Dir: "/etc/clusters"}},
	})
	fleet.Watch(fl, func(f *informers.SharedInformerFactory) *informer.Informer[*v1alpha1.Foo] {
		return f.Samplecontroller().V1alpha1().Foos().Informer()
	}, fleet.Enqueue[*v1alpha1.Foo](q), informer.HandlerOptions{})
	go fl.Run(ctx)
	q.Run(ctx, 4, func(ctx context.Context, k fleet.Key) error {
		c, ok := fl.Cluster(k.Cluster)
		if !ok {
			return nil // disengaged since the key was queued
		}
		foo, err := c.Factory().Samplecontroller().V1alpha1().Foos().Lister().Foos(k.Namespace).Get(k.Name)
		if err != nil {
			return err
		}
		_ = foo // reconcile foo in cluster k.Cluster
		return nil
	})
	// doc:end guide-fleet
}
