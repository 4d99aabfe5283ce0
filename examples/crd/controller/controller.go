package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/freshness"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	listers "github.com/informer-gen/informer-gen/examples/crd/generated/listers/samplecontroller/v1"
)

// Kind tells which resource a Key names.
type Kind uint8

const (
	// KindFoo is a namespaced samplecontroller.example.com/v1 Foo.
	KindFoo Kind = iota + 1
	// KindHost is a cluster-scoped samplecontroller.example.com/v1 Host.
	KindHost
)

func (k Kind) String() string {
	switch k {
	case KindFoo:
		return "Foo"
	case KindHost:
		return "Host"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Key is a work item: one object to reconcile. Namespace is empty for Hosts.
type Key struct {
	Kind      Kind
	Namespace string
	Name      string
}

func (k Key) String() string {
	if k.Namespace == "" {
		return k.Kind.String() + " " + k.Name
	}
	return k.Kind.String() + " " + k.Namespace + "/" + k.Name
}

// Options configures New. The zero value is usable.
type Options struct {
	// Workers is the number of keys reconciled in parallel; 0 means 4.
	Workers int
	// RateLimiter spaces out the retries of failing keys; nil means
	// workqueue.DefaultRateLimiter (per-key exponential backoff from 5ms to
	// 1000s, max-ed with an overall token bucket).
	RateLimiter workqueue.RateLimiter[Key]
	// Observe, when set, is called by a worker before it reconciles key; the
	// returned func (if not nil) is called with the result. Tests use it to
	// check that no key is worked on by two workers at once. It must be safe
	// for concurrent use.
	Observe func(key Key) (done func(err error))
	// Wrote, when set, is called after each successful status write with
	// the key and the resourceVersion the server returned. Tests use it to
	// time a write to the key's next reconcile. It must be safe for
	// concurrent use.
	Wrote func(key Key, resourceVersion string)
	// IgnoreOwnWrites turns off reading the controller's own writes: a key
	// is then reconciled even when the cache has not yet applied the
	// controller's last write for it (what controllers did before
	// KEP-5647). For measuring the difference (Stats.StaleReads); never
	// needed otherwise.
	IgnoreOwnWrites bool
	// Freshness, when set, receives the counts of keys deferred until the
	// cache caught up and the time they waited.
	Freshness freshness.Metrics
	// Deferred, when set, is called by a worker when key's reconcile is
	// deferred because a cache has not applied the controller's last write
	// of it yet (the key is requeued when it has). Tests use it to time a
	// deferred key's write to its next reconcile. It must be safe for
	// concurrent use and must not block.
	Deferred func(key Key)
}

// Stats are counters since New. All fields are cumulative except QueueLen.
type Stats struct {
	// Events is the number of handler calls (adds, updates, deletes).
	Events int64
	// Reconciles is the number of keys reconciled (successfully or not).
	Reconciles int64
	// StatusUpdates is the number of status writes that succeeded.
	StatusUpdates int64
	// Errors is the number of reconciles that failed and were requeued.
	Errors int64
	// Conflicts is the number of status writes the server refused because
	// the object had changed since the cached version was read (another
	// writer's change); each is retried with backoff, not counted in Errors.
	Conflicts int64
	// StaleReads is the number of reconciles that read, from the cache, an
	// object older than the controller's own last write of it: acting on
	// it redoes or undoes that write. Zero unless Options.IgnoreOwnWrites.
	StaleReads int64
	// Gone is the number of status writes that found the object deleted
	// since it was read (its delete event is on its way).
	Gone int64
	// QueueLen is the number of keys waiting now.
	QueueLen int
}

// Controller reconciles Foos and Hosts. Create it with New, run it with Run.
type Controller struct {
	opts    Options
	queue   *workqueue.Queue[Key]
	foos    listers.FooLister
	hosts   listers.HostLister
	client  rest.Interface
	fooReg  *informer.Registration
	hostReg *informer.Registration
	fooInf  *informer.Informer[*samplev1.Foo]
	hostInf *informer.Informer[*samplev1.Host]

	started atomic.Bool

	// own is the record of the controller's own writes per key, which
	// defers a key until the cache has applied them.
	own             *freshness.Tracker[Key]
	fooRes, hostRes freshness.Resource

	// lastWrite is the resourceVersion of the controller's last write per
	// key, to count stale reads (Stats.StaleReads).
	lastWriteMu sync.Mutex
	lastWrite   map[Key]string

	events, reconciles, updates, errs, conflicts, stale, gone atomic.Int64
}

// New returns a controller reading through f's v1 Foo and Host informers and
// writing status to the server in cfg. It registers its event handlers on the
// informers at once (so it must be called before or after f.Start, both
// work); Run processes the keys.
func New(cfg *rest.Config, f *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	client, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	v1 := f.Samplecontroller().V1()
	c := &Controller{
		opts:    opts,
		queue:   workqueue.New(workqueue.Options[Key]{Name: "samplecontroller", RateLimiter: opts.RateLimiter}),
		foos:    v1.Foos().Lister(),
		hosts:   v1.Hosts().Lister(),
		client:  client,
		fooInf:  v1.Foos().Informer(),
		hostInf: v1.Hosts().Informer(),

		own:       &freshness.Tracker[Key]{Metrics: opts.Freshness},
		lastWrite: map[Key]string{},
	}
	c.fooRes = freshness.Resource{Name: "foos." + samplev1.SchemeGroupVersion.Group, Cache: c.fooInf.Indexer()}
	c.hostRes = freshness.Resource{Name: "hosts." + samplev1.SchemeGroupVersion.Group, Cache: c.hostInf.Indexer()}
	fooReg, err := c.fooInf.AddHandler(informer.HandlerFuncs[*samplev1.Foo]{
		AddFunc: func(foo *samplev1.Foo, initial bool) {
			c.events.Add(1)
			p := priority(initial)
			c.enqueueFoo(foo, p)
			c.enqueueHost(foo.Spec.HostName, p)
		},
		UpdateFunc: func(old, foo *samplev1.Foo) {
			c.events.Add(1)
			p := priority(old.ResourceVersion == foo.ResourceVersion)
			c.enqueueFoo(foo, p)
			if old.Spec.HostName != foo.Spec.HostName {
				c.enqueueHost(old.Spec.HostName, p)
				c.enqueueHost(foo.Spec.HostName, p)
			}
		},
		DeleteFunc: func(foo *samplev1.Foo, _ bool) {
			c.events.Add(1)
			c.own.Forget(Key{Kind: KindFoo, Namespace: foo.Namespace, Name: foo.Name})
			c.enqueueHost(foo.Spec.HostName, 0)
		},
	}, informer.HandlerOptions{})
	if err != nil {
		return nil, fmt.Errorf("adding the Foo handler: %w", err)
	}
	hostReg, err := c.hostInf.AddHandler(informer.HandlerFuncs[*samplev1.Host]{
		AddFunc: func(h *samplev1.Host, initial bool) {
			c.events.Add(1)
			p := priority(initial)
			c.enqueueHost(h.Name, p)
			c.enqueueFoosOn(h.Name, p)
		},
		UpdateFunc: func(old, h *samplev1.Host) {
			c.events.Add(1)
			p := priority(old.ResourceVersion == h.ResourceVersion)
			c.enqueueHost(h.Name, p)
			if old.Spec.Capacity != h.Spec.Capacity {
				c.enqueueFoosOn(h.Name, p)
			}
		},
		DeleteFunc: func(h *samplev1.Host, _ bool) {
			c.events.Add(1)
			c.own.Forget(Key{Kind: KindHost, Name: h.Name})
			c.enqueueFoosOn(h.Name, 0)
		},
	}, informer.HandlerOptions{})
	if err != nil {
		_ = c.fooInf.RemoveHandler(fooReg)
		return nil, fmt.Errorf("adding the Host handler: %w", err)
	}
	c.fooReg, c.hostReg = fooReg, hostReg
	return c, nil
}

// priority is the queue priority of the keys an event touches: low for the
// informer's initial list and for updates that changed nothing (a resync),
// so that after a restart a real change is reconciled ahead of the
// thousands of initial adds (workqueue.Handler's rule, for handlers that
// map one object to several keys).
// caughtUpPriority is the priority of a key requeued because the cache
// has applied the controller's last write of it: above the events' (0).
const caughtUpPriority = 1

func priority(unchanged bool) int {
	if unchanged {
		return workqueue.LowPriority
	}
	return 0
}

func (c *Controller) enqueueFoo(foo *samplev1.Foo, p int) {
	c.queue.AddWithOpts(workqueue.AddOpts{Priority: p}, Key{Kind: KindFoo, Namespace: foo.Namespace, Name: foo.Name})
}

func (c *Controller) enqueueHost(name string, p int) {
	if name != "" {
		c.queue.AddWithOpts(workqueue.AddOpts{Priority: p}, Key{Kind: KindHost, Name: name})
	}
}

// enqueueFoosOn queues every Foo on the Host name, found through the index.
func (c *Controller) enqueueFoosOn(name string, p int) {
	foos, err := c.foos.ByHost(name)
	if err != nil {
		// Only an unknown index fails, which would be a bug in this package.
		panic(fmt.Sprintf("listing Foos by Host %q: %v", name, err))
	}
	for _, foo := range foos {
		c.enqueueFoo(foo, p)
	}
}

// Run waits until the informers have delivered their initial lists to the
// controller's handlers, then reconciles keys with Options.Workers workers
// until ctx ends. Then it shuts the queue down, lets the workers drain it,
// removes its handlers and returns once every worker has exited: nil after
// ctx ended normally, or the sync error (naming the resource and, e.g., a 403)
// if ctx ended before the caches synced. Run may be called once.
func (c *Controller) Run(ctx context.Context) error {
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("controller: Run called twice")
	}
	logger := klog.FromContext(ctx)
	defer func() {
		_ = c.fooInf.RemoveHandler(c.fooReg)
		_ = c.hostInf.RemoveHandler(c.hostReg)
	}()
	defer c.queue.ShutDown() // when the caches never sync

	if err := informer.WaitForCacheSync(ctx, c.fooReg, c.hostReg); err != nil {
		return fmt.Errorf("controller: waiting for caches: %w", err)
	}
	logger.V(2).Info("controller caches synced, starting workers", "workers", c.opts.Workers)
	// The queue's standard loop: Forget on success, AddRateLimited on error
	// (logged with the key), panics recovered, ShutDown when ctx ends, and it
	// returns once every worker has. The freshness wrapper holds back a key
	// whose last write the cache has not applied yet and requeues it the
	// moment the cache does.
	reconcile := c.reconcileCounted
	if !c.opts.IgnoreOwnWrites {
		// A key that waited for the cache was triggered before the events
		// queued meanwhile: it goes ahead of them (caughtUpPriority), so a
		// burst of events the lagging watch delivers together with the
		// controller's write does not add its length to the wait.
		requeue := func(key Key) { c.queue.AddWithOpts(workqueue.AddOpts{Priority: caughtUpPriority}, key) }
		reconcile = c.own.Reconciler(requeue, reconcile)
		if c.opts.Deferred != nil {
			inner := reconcile
			reconcile = func(ctx context.Context, key Key) error {
				if c.own.Defer(key, requeue) {
					c.opts.Deferred(key)
					return nil
				}
				return inner(ctx, key)
			}
		}
	}
	if err := c.queue.Run(ctx, c.opts.Workers, reconcile); err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	logger.V(2).Info("controller stopped", "reconciles", c.reconciles.Load())
	return nil
}

// reconcileCounted is reconcile with the Stats counters and Options.Observe.
func (c *Controller) reconcileCounted(ctx context.Context, key Key) error {
	var done func(error)
	if c.opts.Observe != nil {
		done = c.opts.Observe(key)
	}
	err := c.reconcile(ctx, key)
	c.reconciles.Add(1)
	if err != nil {
		c.errs.Add(1)
	}
	if done != nil {
		done(err)
	}
	return err
}

func (c *Controller) reconcile(ctx context.Context, key Key) error {
	switch key.Kind {
	case KindFoo:
		return c.reconcileFoo(ctx, key)
	case KindHost:
		return c.reconcileHost(ctx, key)
	}
	return fmt.Errorf("unknown kind in key %v", key)
}

// DesiredFooStatus is what the controller writes to a Foo's status given the
// Host it names (nil when that Host does not exist).
func DesiredFooStatus(foo *samplev1.Foo, host *samplev1.Host) samplev1.FooStatus {
	st := samplev1.FooStatus{ObservedGeneration: foo.Generation}
	if host != nil {
		st.AvailableReplicas = min(foo.Spec.Replicas, host.Spec.Capacity)
	}
	return st
}

// DesiredHostStatus is what the controller writes to a Host's status given
// the number of Foos that name it.
func DesiredHostStatus(host *samplev1.Host, foos int) samplev1.HostStatus {
	return samplev1.HostStatus{Foos: int32(foos), ObservedGeneration: host.Generation}
}

func (c *Controller) reconcileFoo(ctx context.Context, key Key) error {
	foo, err := c.foos.Foos(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return nil // deleted; its Host was queued by the delete handler
	}
	if err != nil {
		return fmt.Errorf("reading foo %s/%s from the cache: %w", key.Namespace, key.Name, err)
	}
	c.checkStale(key, foo.ResourceVersion)
	var host *samplev1.Host
	if foo.Spec.HostName != "" {
		host, err = c.hosts.Get(foo.Spec.HostName)
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading host %s of foo %s/%s from the cache: %w", foo.Spec.HostName, key.Namespace, key.Name, err)
		}
	}
	want := DesiredFooStatus(foo, host)
	if foo.Status == want {
		return nil
	}
	upd := foo.DeepCopy() // cached objects are shared: never mutate them
	upd.Status = want
	var written samplev1.Foo
	err = c.client.Put().Namespace(key.Namespace).Resource("foos").Name(key.Name).SubResource("status").
		Body(upd).Do(ctx).Into(&written)
	if err != nil {
		return c.writeFailed(ctx, key, fmt.Errorf("updating status of foo %s/%s: %w", key.Namespace, key.Name, err))
	}
	c.wrote(ctx, key, c.fooRes, &written)
	return nil
}

func (c *Controller) reconcileHost(ctx context.Context, key Key) error {
	host, err := c.hosts.Get(key.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading host %s from the cache: %w", key.Name, err)
	}
	c.checkStale(key, host.ResourceVersion)
	foos, err := c.foos.ByHost(key.Name)
	if err != nil {
		return fmt.Errorf("listing foos of host %s: %w", key.Name, err)
	}
	want := DesiredHostStatus(host, len(foos))
	if host.Status == want {
		return nil
	}
	upd := host.DeepCopy()
	upd.Status = want
	var written samplev1.Host
	err = c.client.Put().Resource("hosts").Name(key.Name).SubResource("status").Body(upd).Do(ctx).Into(&written)
	if err != nil {
		return c.writeFailed(ctx, key, fmt.Errorf("updating status of host %s: %w", key.Name, err))
	}
	c.wrote(ctx, key, c.hostRes, &written)
	return nil
}

// wrote records a successful write for key: its next reconcile waits until
// res's cache has applied it.
func (c *Controller) wrote(ctx context.Context, key Key, res freshness.Resource, obj metav1.Object) {
	c.updates.Add(1)
	if err := c.own.Wrote(key, res, obj); err != nil {
		// The server's resourceVersion cannot be ordered: nothing can
		// wait for it, the next reconcile runs as it would have.
		klog.FromContext(ctx).V(2).Info("write not tracked", "key", key, "err", err)
	}
	c.lastWriteMu.Lock()
	c.lastWrite[key] = obj.GetResourceVersion()
	c.lastWriteMu.Unlock()
	if c.opts.Wrote != nil {
		c.opts.Wrote(key, obj.GetResourceVersion())
	}
}

// writeFailed sorts a failed status write. A conflict (another writer
// changed the object after the cache's version was read) is expected: it is
// counted, logged at V(2) and retried with the queue's backoff (the watch
// event of that change usually requeues the key first). A NotFound (deleted
// meanwhile) needs no retry: the delete event requeues what depends on it.
// A write cut short because the controller is stopping (ctx ended) is
// abandoned, logged at V(2). Anything else is returned, to be logged as an
// error and retried.
func (c *Controller) writeFailed(ctx context.Context, key Key, err error) error {
	switch {
	case ctx.Err() != nil:
		klog.FromContext(ctx).V(2).Info("status write abandoned: the controller is stopping", "key", key, "err", err)
		return nil
	case apierrors.IsConflict(err):
		c.conflicts.Add(1)
		klog.FromContext(ctx).V(2).Info("status write conflicted with a newer version; retrying", "key", key)
		c.queue.AddRateLimited(key)
		return nil
	case apierrors.IsNotFound(err):
		c.gone.Add(1)
		klog.FromContext(ctx).V(2).Info("object deleted before its status was written", "key", key)
		return nil
	}
	return err
}

// checkStale counts a read of key's object at rv that is older than the
// controller's own last write of it (Stats.StaleReads).
func (c *Controller) checkStale(key Key, rv string) {
	c.lastWriteMu.Lock()
	last, ok := c.lastWrite[key]
	c.lastWriteMu.Unlock()
	if !ok {
		return
	}
	if cmp, err := store.CompareResourceVersions(rv, last); err == nil && cmp < 0 {
		c.stale.Add(1)
	}
}

// Stats returns the controller's counters. Safe for concurrent use.
func (c *Controller) Stats() Stats {
	return Stats{
		Events:        c.events.Load(),
		Reconciles:    c.reconciles.Load(),
		StatusUpdates: c.updates.Load(),
		Errors:        c.errs.Load(),
		Conflicts:     c.conflicts.Load(),
		StaleReads:    c.stale.Load(),
		Gone:          c.gone.Load(),
		QueueLen:      c.queue.Len(),
	}
}
