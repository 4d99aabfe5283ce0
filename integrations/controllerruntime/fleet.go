package controllerruntime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// FleetRequest is the reconcile request of a controller over a fleet: the
// object's namespace and name qualified by the name of the cluster it is in
// (as multicluster-runtime's mcreconcile.Request). It is comparable, so the
// controller's queue deduplicates per cluster and object: the same object
// in two clusters is two requests, reconciled independently.
type FleetRequest struct {
	// ClusterName is the cluster's name in the fleet (fleet.Key.Cluster):
	// Fleet.Cluster(ClusterName) gives its factory.
	ClusterName string
	reconcile.Request
}

// String reads "cluster:namespace/name" (fleet.Key's form): for logs, not
// for parsing.
func (r FleetRequest) String() string { return r.Key().String() }

// Key returns r as a fleet.Key.
func (r FleetRequest) Key() fleet.Key {
	return fleet.Key{Cluster: r.ClusterName, Namespace: r.Namespace, Name: r.Name}
}

// FleetKind returns a controller-runtime source of T's events in every
// cluster of fl, engaged now or later, for a controller whose requests are
// FleetRequests:
//
//	ctrl.NewControllerManagedBy(mgr).Named("foo").
//		WatchesRawSource(crinformers.FleetKind(fl,
//			func(f *informers.SharedInformerFactory) *informer.Informer[*v1.Foo] {
//				return f.Samplecontroller().V1().Foos().Informer()
//			},
//			crinformers.EnqueueFleetRequestForObject[*v1.Foo]())).
//		Complete(crinformers.FleetReconciler(fl, r))
//
// inf picks the informer from one cluster's factory (a generated accessor,
// creating it on first use); h makes the cluster's event handler, given its
// name (EnqueueFleetRequestForObject, or Lift of any handler of
// reconcile.Requests). See TypedFleetKind for the contract.
func FleetKind[F fleet.Factory, T store.Object[T]](fl *fleet.Fleet[F], inf func(F) *informer.Informer[T], h func(cluster string) handler.TypedEventHandler[T, FleetRequest], preds ...predicate.TypedPredicate[T]) source.TypedSyncingSource[FleetRequest] {
	return TypedFleetKind(fl, inf, h, preds...)
}

// TypedFleetKind is FleetKind for controllers whose requests are of another
// type R (one that carries the cluster's name in its own way).
//
// Start registers the handlers with fleet.Watch: on the informer inf picks
// in every cluster engaged at Start, and in every cluster engaged later
// (re-engaged ones included), until the fleet stops. Each cluster's events
// run on that cluster's informer goroutines, so a slow, unreachable or
// forbidden cluster never delays another's events. A disengaged cluster's
// informers stop, so its events stop; its requests already queued stay
// queued (FleetReconciler drops them). Once Start's ctx ends, the handlers
// pass no more events on (fleet.Watch has no removal: they stay registered,
// idle, until their cluster is disengaged or the fleet stops).
//
// WaitForSync waits until every cluster engaged when it is called has
// synced or failed (fleet.Fleet.WaitForCacheSync), so the controller's
// first reconciles read warm caches. It never fails the controller for a
// cluster's sake: failed clusters are logged and keep retrying, and when
// ctx ends (controller-runtime's CacheSyncTimeout) with clusters still
// syncing, those are logged and WaitForSync returns nil all the same;
// their events flow once they have synced, as for a cluster engaged later.
// It returns an error only when Start was not called first or failed.
func TypedFleetKind[F fleet.Factory, T store.Object[T], R comparable](fl *fleet.Fleet[F], inf func(F) *informer.Informer[T], h func(cluster string) handler.TypedEventHandler[T, R], preds ...predicate.TypedPredicate[T]) source.TypedSyncingSource[R] {
	return &fleetSource[F, T, R]{fl: fl, inf: inf, h: h, preds: preds, started: make(chan struct{})}
}

type fleetSource[F fleet.Factory, T store.Object[T], R comparable] struct {
	fl    *fleet.Fleet[F]
	inf   func(F) *informer.Informer[T]
	h     func(cluster string) handler.TypedEventHandler[T, R]
	preds []predicate.TypedPredicate[T]

	once    sync.Once
	started chan struct{} // closed when Start ran
	err     error
}

func (s *fleetSource[F, T, R]) String() string {
	var zero T
	return fmt.Sprintf("informer-gen fleet source: %T", zero)
}

// Start registers a handler on every cluster's informer, now and later. It
// returns at once.
func (s *fleetSource[F, T, R]) Start(ctx context.Context, q workqueue.TypedRateLimitingInterface[R]) error {
	ran := false
	s.once.Do(func() {
		ran = true
		defer close(s.started)
		if s.fl == nil || s.inf == nil || s.h == nil {
			s.err = fmt.Errorf("%s: nil fleet, informer or handler", s)
			return
		}
		fleet.Watch(s.fl, s.inf, func(cluster string) informer.Handler[T] {
			return &fleetEventHandler[T, R]{eventHandler[T, R]{ctx: ctx, q: q, h: s.h(cluster), preds: s.preds}}
		}, informer.HandlerOptions{})
	})
	if !ran {
		return fmt.Errorf("%s: Start called twice", s)
	}
	return s.err
}

// WaitForSync waits for the clusters engaged now to have synced or failed.
func (s *fleetSource[F, T, R]) WaitForSync(ctx context.Context) error {
	select {
	case <-s.started:
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil
		}
		return fmt.Errorf("%s: WaitForSync before Start: %w", s, ctx.Err())
	}
	if s.err != nil {
		return s.err
	}
	if err := s.fl.WaitForCacheSync(ctx); err != nil && !errors.Is(ctx.Err(), context.Canceled) {
		// Synced or failed, or the timeout: either way the others go on.
		klog.FromContext(ctx).Error(err, "Starting the controller without the clusters that have not synced; their events follow once they do", "source", s.String())
	}
	return nil
}

// fleetEventHandler is eventHandler that drops events once its source's
// ctx has ended (the fleet keeps the registration).
type fleetEventHandler[T store.Object[T], R comparable] struct{ e eventHandler[T, R] }

func (f *fleetEventHandler[T, R]) OnAdd(obj T, initial bool) {
	if f.e.ctx.Err() == nil {
		f.e.OnAdd(obj, initial)
	}
}

func (f *fleetEventHandler[T, R]) OnUpdate(oldObj, newObj T) {
	if f.e.ctx.Err() == nil {
		f.e.OnUpdate(oldObj, newObj)
	}
}

func (f *fleetEventHandler[T, R]) OnDelete(obj T, finalStateUnknown bool) {
	if f.e.ctx.Err() == nil {
		f.e.OnDelete(obj, finalStateUnknown)
	}
}

// EnqueueFleetRequestForObject returns, for FleetKind, the handler of a
// cluster that queues each object's FleetRequest: handler.TypedEnqueueRequestForObject
// lifted to the fleet (see Lift), so with controller-runtime's priority
// queue the initial list of each cluster is queued at low priority.
func EnqueueFleetRequestForObject[T store.Object[T]]() func(cluster string) handler.TypedEventHandler[T, FleetRequest] {
	return Lift[T](&handler.TypedEnqueueRequestForObject[T]{})
}

// Lift turns a handler of reconcile.Requests (handler.TypedEnqueueRequestForObject,
// TypedEnqueueRequestForOwner, EnqueueRequestsFromMapFunc...) into the per-cluster
// handlers FleetKind takes: every request it adds is added as a
// FleetRequest with the cluster's name, with the same delay, rate limiting
// and, when the controller's queue is controller-runtime's priority queue,
// priority. h is shared by every cluster, so it must be safe for concurrent
// use (controller-runtime's handlers are).
func Lift[T any](h handler.TypedEventHandler[T, reconcile.Request]) func(cluster string) handler.TypedEventHandler[T, FleetRequest] {
	return func(cluster string) handler.TypedEventHandler[T, FleetRequest] {
		return liftedHandler[T]{cluster: cluster, h: h}
	}
}

type liftedHandler[T any] struct {
	cluster string
	h       handler.TypedEventHandler[T, reconcile.Request]
}

func (l liftedHandler[T]) Create(ctx context.Context, ev event.TypedCreateEvent[T], q workqueue.TypedRateLimitingInterface[FleetRequest]) {
	l.h.Create(ctx, ev, clusterQueueFor(l.cluster, q))
}

func (l liftedHandler[T]) Update(ctx context.Context, ev event.TypedUpdateEvent[T], q workqueue.TypedRateLimitingInterface[FleetRequest]) {
	l.h.Update(ctx, ev, clusterQueueFor(l.cluster, q))
}

func (l liftedHandler[T]) Delete(ctx context.Context, ev event.TypedDeleteEvent[T], q workqueue.TypedRateLimitingInterface[FleetRequest]) {
	l.h.Delete(ctx, ev, clusterQueueFor(l.cluster, q))
}

func (l liftedHandler[T]) Generic(ctx context.Context, ev event.TypedGenericEvent[T], q workqueue.TypedRateLimitingInterface[FleetRequest]) {
	l.h.Generic(ctx, ev, clusterQueueFor(l.cluster, q))
}

// clusterQueueFor returns the controller's queue q as a queue of
// reconcile.Requests of one cluster: a priority queue when q is one.
func clusterQueueFor(cluster string, q workqueue.TypedRateLimitingInterface[FleetRequest]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	cq := clusterQueue{cluster: cluster, q: q}
	if pq, ok := q.(priorityqueue.PriorityQueue[FleetRequest]); ok {
		return clusterPriorityQueue{clusterQueue: cq, pq: pq}
	}
	return cq
}

// clusterQueue adds to the fleet's queue what a handler of one cluster
// adds. Handlers only add; Get and Done translate for completeness.
type clusterQueue struct {
	cluster string
	q       workqueue.TypedRateLimitingInterface[FleetRequest]
}

func (c clusterQueue) req(r reconcile.Request) FleetRequest {
	return FleetRequest{ClusterName: c.cluster, Request: r}
}

func (c clusterQueue) Add(r reconcile.Request) { c.q.Add(c.req(r)) }
func (c clusterQueue) AddAfter(r reconcile.Request, d time.Duration) {
	c.q.AddAfter(c.req(r), d)
}
func (c clusterQueue) AddRateLimited(r reconcile.Request) { c.q.AddRateLimited(c.req(r)) }
func (c clusterQueue) Forget(r reconcile.Request)         { c.q.Forget(c.req(r)) }
func (c clusterQueue) NumRequeues(r reconcile.Request) int {
	return c.q.NumRequeues(c.req(r))
}
func (c clusterQueue) Len() int { return c.q.Len() }
func (c clusterQueue) Get() (reconcile.Request, bool) {
	r, shutdown := c.q.Get()
	return r.Request, shutdown
}
func (c clusterQueue) Done(r reconcile.Request) { c.q.Done(c.req(r)) }
func (c clusterQueue) ShutDown()                { c.q.ShutDown() }
func (c clusterQueue) ShutDownWithDrain()       { c.q.ShutDownWithDrain() }
func (c clusterQueue) ShuttingDown() bool       { return c.q.ShuttingDown() }

type clusterPriorityQueue struct {
	clusterQueue
	pq priorityqueue.PriorityQueue[FleetRequest]
}

func (c clusterPriorityQueue) AddWithOpts(o priorityqueue.AddOpts, rs ...reconcile.Request) {
	frs := make([]FleetRequest, len(rs))
	for i, r := range rs {
		frs[i] = c.req(r)
	}
	c.pq.AddWithOpts(o, frs...)
}

func (c clusterPriorityQueue) GetWithPriority() (reconcile.Request, int, bool) {
	r, p, shutdown := c.pq.GetWithPriority()
	return r.Request, p, shutdown
}

// FleetReconciler adapts r, a reconciler given the request's cluster, to
// FleetRequests: it looks the request's cluster up in fl and calls r with
// it and the request's namespace and name, with the cluster's name in the
// ctx's logger ("cluster"). A request whose cluster is not engaged (it was
// disengaged after the request was queued) is dropped: FleetReconciler
// returns an empty Result and nil without calling r. A re-engaged cluster's
// requests find the cluster of that name, whichever factory serves it.
func FleetReconciler[F fleet.Factory](fl *fleet.Fleet[F], r func(ctx context.Context, c *fleet.Cluster[F], req reconcile.Request) (reconcile.Result, error)) reconcile.TypedReconciler[FleetRequest] {
	return reconcile.TypedFunc[FleetRequest](func(ctx context.Context, req FleetRequest) (reconcile.Result, error) {
		c, ok := fl.Cluster(req.ClusterName)
		logger := klog.FromContext(ctx).WithValues("cluster", req.ClusterName)
		if !ok {
			logger.V(4).Info("Dropping a request of a cluster that is not engaged", "request", req.Request.String())
			return reconcile.Result{}, nil
		}
		return r(klog.NewContext(ctx, logger), c, req.Request)
	})
}

// joinNames is "a, b, c".
func joinNames(names []string) string { return strings.Join(names, ", ") }
