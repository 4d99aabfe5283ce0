package freshness

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// Cache is what a Tracker needs of an informer's cache: *store.Indexer[T]
// (an informer's Indexer()) is one. See store.Indexer.AfterResourceVersion
// for the contract.
type Cache interface {
	AfterResourceVersion(ns, rv string, fn func()) (waiting bool, stop func() bool, err error)
}

// Resource names one cache whose objects a controller writes: the name is
// for metrics and logs (e.g. "foos.samplecontroller.example.com"), Cache is
// the informer's cache that receives those writes. Resources are compared by
// value: use one per cache.
type Resource struct {
	Name  string
	Cache Cache
}

// Metrics are the hooks a Tracker reports through; a nil Metrics reports
// nothing. Implementations must be safe for concurrent use and quick: they
// are called under the Tracker's lock, and Waited on the informer's pop loop.
type Metrics interface {
	// Deferred is called when a reconcile is deferred (not run) because the
	// cache of resource has not applied a write recorded for the key yet.
	Deferred(resource string)
	// Waited is called when the cache of resource catches up with a deferred
	// key's write, with the time since the key was deferred.
	Waited(resource string, d time.Duration)
	// NotComparable is called when a recorded write cannot be waited for
	// because its resourceVersion, or the cache's, cannot be ordered (see
	// store.ErrNotComparable); the key is reconciled without waiting.
	NotComparable(resource string)
}

// Tracker is a controller's record of its own writes, per key: the
// resourceVersion each write returned, and the cache that must apply it
// before the key's next reconcile may read that cache (KEP-5647's
// consistency store, typed and without polling). A worker calls Wrote after
// each successful write made for key; Reconciler (or Defer) runs key's next
// reconcile only once every such cache has caught up, and otherwise requeues
// key at the moment its cache does.
//
// The zero value is an empty Tracker that reports nothing, ready to use;
// it must not be copied once used (use a *Tracker). All methods are safe
// for concurrent use. A key nobody wrote for costs one map lookup and no
// allocation per reconcile.
type Tracker[K comparable] struct {
	// Metrics, when set, receives the Tracker's counts and waiting times.
	// Set it before the Tracker is first used, and not after.
	Metrics Metrics

	mu   sync.Mutex
	keys map[K]*record // made by the first Wrote
}

// record is what is pending for one key.
type record struct {
	writes []write
	// stop cancels the callback registered for the write the key waits on
	// (nil when none is registered).
	stop  func() bool
	since time.Time
}

type write struct {
	res    Resource
	ns, rv string
}

// Wrote records that a write made for key returned obj (the response of a
// create, update, patch or delete) from the server of res: key's next
// reconcile waits until res.Cache has applied obj's resourceVersion in obj's
// namespace. Recording an older write of the same object's namespace and
// resource than one already recorded changes nothing. It returns an error
// wrapping store.ErrNotComparable, and records nothing, when obj's
// resourceVersion is not a well-formed one (nothing could wait for it).
func (t *Tracker[K]) Wrote(key K, res Resource, obj metav1.Object) error {
	return t.WroteAt(key, res, obj.GetNamespace(), obj.GetResourceVersion())
}

// WroteAt is Wrote for a write known by its namespace ("" for a
// cluster-scoped object) and returned resourceVersion rv.
func (t *Tracker[K]) WroteAt(key K, res Resource, ns, rv string) error {
	if _, err := store.CompareResourceVersions(rv, rv); err != nil {
		return fmt.Errorf("recording a write of %s: %w", res.Name, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.keys[key]
	if r == nil {
		if t.keys == nil {
			t.keys = map[K]*record{}
		}
		r = &record{}
		t.keys[key] = r
	}
	for n := range r.writes {
		w := &r.writes[n]
		if w.res == res && w.ns == ns {
			if c, err := store.CompareResourceVersions(rv, w.rv); err == nil && c > 0 {
				w.rv = rv
			}
			return nil
		}
	}
	r.writes = append(r.writes, write{res: res, ns: ns, rv: rv})
	return nil
}

// Forget drops what is recorded for key (a key whose object is gone for
// good, say), and any requeue it was waiting for.
func (t *Tracker[K]) Forget(key K) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r := t.keys[key]; r != nil {
		if r.stop != nil {
			r.stop()
		}
		delete(t.keys, key)
	}
}

// Pending returns the number of keys with writes their caches have not
// been seen to apply yet.
func (t *Tracker[K]) Pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.keys)
}

// Defer reports whether key must not be reconciled now: true when a cache
// has not yet applied a write recorded for key, in which case requeue(key)
// is called once that cache has (on the informer's pop loop: requeue must
// be quick and must not block, as workqueue.Queue.Add is), false when every
// recorded write is applied (the record is then dropped) or nothing is
// recorded. Deferring starts no goroutine and no timer. A write that
// cannot be compared (store.ErrNotComparable) is dropped and reported to
// Metrics.NotComparable: key is not held back by it.
func (t *Tracker[K]) Defer(key K, requeue func(K)) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.keys[key]
	if r == nil {
		return false
	}
	if r.stop != nil {
		// Woken by something else (an event) while a requeue is pending:
		// still deferred; the pending requeue stands.
		return true
	}
	for len(r.writes) > 0 {
		w := r.writes[0]
		waiting, stop, err := w.res.Cache.AfterResourceVersion(w.ns, w.rv, func() { t.caughtUp(key, r, w.res.Name, requeue) })
		if err != nil || !waiting {
			if err != nil && t.Metrics != nil {
				t.Metrics.NotComparable(w.res.Name)
			}
			r.writes = r.writes[1:]
			continue
		}
		r.stop, r.since = stop, time.Now()
		if t.Metrics != nil {
			t.Metrics.Deferred(w.res.Name)
		}
		return true
	}
	delete(t.keys, key)
	return false
}

// caughtUp is the callback of a deferred key's write: its cache has
// applied it.
func (t *Tracker[K]) caughtUp(key K, r *record, resource string, requeue func(K)) {
	t.mu.Lock()
	if t.keys[key] != r || r.stop == nil {
		t.mu.Unlock() // forgotten meanwhile
		return
	}
	r.stop = nil
	r.writes = r.writes[1:]
	waited := time.Since(r.since)
	if len(r.writes) == 0 {
		delete(t.keys, key)
	}
	t.mu.Unlock()
	if t.Metrics != nil {
		t.Metrics.Waited(resource, waited)
	}
	requeue(key)
}

// Reconciler wraps reconcile for workqueue.Queue.Run (or any worker loop,
// and composes with shard.Shard.Reconciler): a key whose own recorded writes
// some cache has not applied yet is not reconciled now; the wrapper returns
// nil (so its backoff is forgotten) and requeue(key) runs when the cache
// catches up. Otherwise it calls reconcile. With workqueue, pass q.Add as
// requeue: a key requeued while it is being processed is processed once
// more afterwards.
func (t *Tracker[K]) Reconciler(requeue func(K), reconcile func(ctx context.Context, key K) error) func(ctx context.Context, key K) error {
	return func(ctx context.Context, key K) error {
		if t.Defer(key, requeue) {
			klog.FromContext(ctx).V(5).Info("reconcile deferred until the cache has applied the controller's last write", "key", key)
			return nil
		}
		return reconcile(ctx, key)
	}
}
