package fleet

import (
	"fmt"
	"sync"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// Key is a cluster-qualified object key, the key of a fleet's work queue
// (workqueue.Queue[Key]: deduplication, priorities and rate limiting as for
// any key). Namespace is empty for cluster-scoped objects. It is
// comparable, so the same object in two clusters is two keys.
type Key struct {
	Cluster   string
	Namespace string
	Name      string
}

// String reads "cluster:namespace/name", or "cluster:name" for a
// cluster-scoped object: for logs, not for parsing.
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Cluster + ":" + k.Name
	}
	return k.Cluster + ":" + k.Namespace + "/" + k.Name
}

// Watch registers a handler on one informer of every cluster: those engaged
// now and every cluster engaged later (re-engaged ones included), until the
// fleet stops. inf picks the informer from a cluster's factory (a
// generated accessor: func(f *informers.SharedInformerFactory)
// *informer.Informer[*v1.Foo] { return f.Samplecontroller().V1alpha1().Foos().Informer() }),
// creating it on first use; handler makes the cluster's handler, given the
// cluster's name, so events carry their cluster (Enqueue is the usual
// one). Each handler runs in its cluster's informer as any handler
// (informer.Informer.AddHandler, with opts): a slow or failing cluster
// never delays another's.
//
// Watch runs inf and handler for the clusters engaged now before it
// returns, and for a cluster engaged later inside that Engage, never
// under the fleet's lock. A registration that fails is reported by that
// cluster's LastError.
func Watch[F Factory, T store.Object[T]](f *Fleet[F], inf func(F) *informer.Informer[T], handler func(cluster string) informer.Handler[T], opts informer.HandlerOptions) {
	w := func(c *Cluster[F]) {
		h := &serialized[T]{h: handler(c.name)}
		if _, err := inf(c.factory).AddHandler(h, opts); err != nil {
			c.setupError(fmt.Errorf("watch: %w", err))
			return
		}
		// A replacement's events reach h while the cluster it replaces
		// still serves reads, whose cache may not have those objects yet
		// and is stopped at the swap: so after the swap h gets the new
		// cache once more, as a handler added late does, and whoever reads
		// what it announces reads the cluster that now serves.
		c.onSwap(func() {
			i := inf(c.factory)
			reg, err := i.AddHandler(h, informer.HandlerOptions{ResyncPeriod: -1})
			if err != nil {
				return // the cluster was stopped meanwhile
			}
			select {
			case <-reg.Synced():
			case <-c.done:
			}
			_ = i.RemoveHandler(reg)
		})
	}
	f.mu.Lock()
	f.watches = append(f.watches, w)
	cs := make([]*Cluster[F], 0, len(f.clusters)+len(f.pending))
	for _, c := range f.clusters {
		cs = append(cs, c)
	}
	for _, c := range f.pending {
		cs = append(cs, c)
	}
	f.mu.Unlock()
	for _, c := range cs {
		w(c)
	}
}

// serialized calls h from one goroutine at a time. Watch registers a
// cluster's handler twice for a while after a swap (its replay beside it),
// and a Handler may count on being called from one goroutine (the
// informer.Handler contract); an uncontended lock costs tens of
// nanoseconds an event.
type serialized[T any] struct {
	h  informer.Handler[T]
	mu sync.Mutex
}

func (s *serialized[T]) OnAdd(obj T, isInInitialList bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.h.OnAdd(obj, isInInitialList)
}

func (s *serialized[T]) OnUpdate(oldObj, newObj T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.h.OnUpdate(oldObj, newObj)
}

func (s *serialized[T]) OnDelete(obj T, finalStateUnknown bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.h.OnDelete(obj, finalStateUnknown)
}

// Enqueue returns, for Watch, the handler of a cluster that queues each
// object's Key in q, with workqueue.Handler's priorities (an initial list
// and resyncs at workqueue.LowPriority, other changes at 0). It never
// blocks.
func Enqueue[T store.Object[T]](q *workqueue.Queue[Key]) func(cluster string) informer.Handler[T] {
	return func(cluster string) informer.Handler[T] {
		return workqueue.Handler[T, Key]{Queue: q, Key: func(obj T) Key {
			return Key{Cluster: cluster, Namespace: obj.GetNamespace(), Name: obj.GetName()}
		}}
	}
}

// Item is an object read across a fleet, with the cluster it is from.
type Item[T any] struct {
	Cluster string
	Object  T
}

// Collect reads every engaged cluster that has synced with read (any read
// of its typed listers: a generated index method,
// c.Factory().Samplecontroller().V1alpha1().Foos().Lister().ByNode("n1"),
// a List with a selector) and returns what they found, each object with its
// cluster, clusters in name order. Objects are shared with the caches:
// read-only.
//
// A cluster that has not synced is skipped, not waited for, and named in
// the error with its LastError, as is a read that failed; the items of the
// other clusters are returned all the same. So err != nil means "some
// clusters missing", not "no result".
func Collect[F Factory, T any](f *Fleet[F], read func(c *Cluster[F]) ([]T, error)) ([]Item[T], error) {
	var items []Item[T]
	var errs []error
	for _, c := range f.Clusters() {
		if !c.HasSynced() {
			err := c.LastError()
			if err == nil {
				err = fmt.Errorf("cluster %q: not synced", c.name)
			}
			errs = append(errs, err)
			continue
		}
		objs, err := read(c)
		if err != nil {
			errs = append(errs, fmt.Errorf("cluster %q: %w", c.name, err))
		}
		for _, o := range objs {
			items = append(items, Item[T]{Cluster: c.name, Object: o})
		}
	}
	if len(errs) > 0 {
		return items, fmt.Errorf("fleet: %d clusters skipped or failed: %w", len(errs), joined(errs))
	}
	return items, nil
}
