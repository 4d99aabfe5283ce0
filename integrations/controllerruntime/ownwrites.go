package controllerruntime

import (
	"context"
	"sync"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/informer-gen/informer-gen/runtime/freshness"
)

// OwnWrites makes a controller-runtime controller read its own writes: a
// request whose last writes (recorded in a freshness.Tracker) a cache has
// not applied yet is not reconciled; it is added to the controller's queue
// again at the moment that cache catches up (KEP-5647's approach; see
// runtime/freshness). It is both halves of that:
//
//   - a source.TypedSource (Start) that the controller must watch, through
//     which OwnWrites reaches the controller's queue:
//     builder's WatchesRawSource(ow), or Controller.Watch(ow);
//   - Reconciler, the wrapper of the controller's reconciler.
//
// The reconciler records each successful write with Tracker().Wrote(req,
// res, obj), where res.Cache is the informer's cache that receives that
// object (informer.Informer.Indexer(); the generated informers'
// Informer().Indexer()). Nothing polls and nothing runs while a request waits:
// the cache's writer calls back when it has applied the write.
//
// One OwnWrites serves one controller. Safe for concurrent use.
type OwnWrites[request comparable] struct {
	tracker *freshness.Tracker[request]

	mu    sync.Mutex
	queue workqueue.TypedRateLimitingInterface[request] // nil before Start
	early []request                                     // requeues before Start
}

// NewOwnWrites returns an OwnWrites over tracker (a &freshness.Tracker[request]{}
// of the controller's request type; reconcile.Request for builder's
// controllers).
func NewOwnWrites[request comparable](tracker *freshness.Tracker[request]) *OwnWrites[request] {
	return &OwnWrites[request]{tracker: tracker}
}

// Tracker returns the record of the controller's writes: call its Wrote
// after each successful write made while reconciling a request, and Forget
// when a request's object is gone for good.
func (o *OwnWrites[request]) Tracker() *freshness.Tracker[request] { return o.tracker }

// Start implements source.TypedSource: the controller calls it once with its
// queue, into which OwnWrites adds the requests whose caches caught up
// (requeues that happened earlier are added then). It does not block.
func (o *OwnWrites[request]) Start(_ context.Context, q workqueue.TypedRateLimitingInterface[request]) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.queue = q
	for _, r := range o.early {
		q.Add(r)
	}
	o.early = nil
	return nil
}

// String names the source in controller-runtime's logs.
func (o *OwnWrites[request]) String() string { return "informer-gen own writes" }

// requeue is the Tracker's callback: quick and non-blocking, as the cache's
// writer calls it.
func (o *OwnWrites[request]) requeue(r request) {
	o.mu.Lock()
	q := o.queue
	if q == nil {
		o.early = append(o.early, r)
	}
	o.mu.Unlock()
	if q != nil {
		q.Add(r)
	}
}

// Reconciler wraps r: a request whose recorded writes some cache has not
// applied yet is not passed to r; the wrapper returns an empty Result and a
// nil error (so the queue forgets the request's backoff) and the request is
// queued again once the cache has applied them (freshness.Tracker.Defer).
// Otherwise it returns what r returns. Deferring is logged at V(5).
func (o *OwnWrites[request]) Reconciler(r reconcile.TypedReconciler[request]) reconcile.TypedReconciler[request] {
	return reconcile.TypedFunc[request](func(ctx context.Context, req request) (reconcile.Result, error) {
		if o.tracker.Defer(req, o.requeue) {
			log.FromContext(ctx).V(5).Info("reconcile deferred until the cache has applied the controller's last write")
			return reconcile.Result{}, nil
		}
		return r.Reconcile(ctx, req)
	})
}
