package informer

import (
	"context"
	"reflect"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/core"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/untypedlw"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// Informer is a shared index informer of T: it runs a Reflector (list, then
// watch) into a DeltaFIFO, applies the changes to its cache (Indexer) and
// fans each one out to every registered Handler, each on a goroutine of its
// own.
//
// It is a view of the runtime's untyped informer core, whose objects are all
// T (it refuses any other type, with an error naming both): each method is a
// call and a conversion, so a package using Informer[T] compiles a few small
// functions, not the informer; they are marked go:noinline, as Indexer[T]'s
// are, to keep those functions small for the compiler (see store.Indexer).
//
// All methods are safe for concurrent use. Run runs it once.
type Informer[T store.Object[T]] core.Shared

// New returns an informer over lw. It starts nothing: handlers and indexers
// may be added before Run, and Indexer() is usable (empty) at once.
func New[T store.Object[T]](lw reflector.ListerWatcher[T], opts Options[T]) *Informer[T] {
	return (*Informer[T])(core.NewShared(untypedlw.New(lw), reflect.TypeFor[T](), opts.core()))
}

// NewMultiNamespace returns one informer over several namespaces: sources
// maps each namespace to a ListerWatcher that lists and watches only that
// namespace. A Reflector per namespace (each with its own resourceVersion,
// relists and backoff, as the API server has no resourceVersion spanning
// namespaces, and all sharing one request budget, so that their retries
// together make about one request a second however many namespaces fail)
// feeds one DeltaFIFO partitioned by namespace, so handlers get one event
// stream, the Indexer (and any Lister over it) is one cache holding exactly
// the watched namespaces, and a relist after a 410 in one namespace
// tombstones only that namespace's vanished objects. HasSynced turns true
// once every namespace has been listed and applied. LastError and
// LastSyncResourceVersion report per namespace, in namespace order.
//
// It panics on no sources and on "" (all namespaces: use New): programming
// errors.
func NewMultiNamespace[T store.Object[T]](sources map[string]reflector.ListerWatcher[T], opts Options[T]) *Informer[T] {
	// A plain loop (core sorts them): this is compiled by every package
	// that calls it, the factory's typed funcs included.
	untyped := make([]core.NamespaceSource, 0, len(sources))
	for ns, lw := range sources {
		untyped = append(untyped, core.NamespaceSource{Namespace: ns, ListerWatcher: untypedlw.New(lw)})
	}
	return (*Informer[T])(core.NewSharedMultiNamespace(untyped, reflect.TypeFor[T](), opts.core()))
}

// Name returns the informer's name (Options.Reflector.Name, or the Go type
// of T), used in logs and in WaitForCacheSync's errors.
//
//go:noinline
func (i *Informer[T]) Name() string { return (*core.Shared)(i).Name() }

// Run runs the informer until ctx ends and returns only after every
// goroutine it started has exited. A second call returns an error at once.
//
// Once ctx ends, delivery stops at once, whatever the handlers' backlog:
// after cancel has returned, no handler call starts; a call already in
// progress runs to its end; what was buffered for a handler and not yet
// delivered is dropped (so a handler may not have seen every change the cache
// applied, and a Registration that had not synced never will). Meanwhile the
// Reflector stops (its open watch is stopped) and the pop loop stops after
// the batch it is applying; changes still queued in the FIFO are dropped.
// Run then returns nil, as soon as the slowest handler call in progress
// returns: a handler that blocks forever keeps Run from returning.
//
//go:noinline
func (i *Informer[T]) Run(ctx context.Context) error { return (*core.Shared)(i).Run(ctx) }

// AddHandler registers h, before or while the informer runs:
// before Run, h gets everything from the start; after, h first gets a
// synthetic OnAdd(obj, true) for every cached object, then every later change
// (no gap, no duplicate: the cache snapshot and the event stream are cut at
// the same point). h runs on a goroutine of its own with an unbounded buffer,
// so a slow h never delays the informer or other handlers. It returns an
// error for a nil h, once Run is stopping (after ctx ended and the pop loop
// stopped, while the handlers stop) and after Run returned.
//
//go:noinline
func (i *Informer[T]) AddHandler(h Handler[T], opts HandlerOptions) (*Registration, error) {
	var u core.Handler
	if h != nil {
		u = &typedHandler[T]{h}
	}
	r, err := (*core.Shared)(i).AddHandler(u, core.HandlerOptions(opts))
	return (*Registration)(r), err
}

// RemoveHandler unregisters r: its handler gets nothing more, what was
// buffered for it is dropped, and its goroutine exits. A call whose delivery
// had already begun when RemoveHandler took effect still completes (at most
// one); to know that no call is running or coming, wait for r.Stopped() (not
// from within the handler, which is safe to call RemoveHandler itself). It
// returns an error if r is not registered with this informer (or was removed
// already).
//
//go:noinline
func (i *Informer[T]) RemoveHandler(r *Registration) error {
	return (*core.Shared)(i).RemoveHandler((*core.Registration)(r))
}

// Handlers returns the registrations of the handlers registered now, in the
// order they were added.
//
//go:noinline
func (i *Informer[T]) Handlers() []*Registration { return registrations((*core.Shared)(i).Handlers()) }

// Indexer returns the informer's cache (read side). Objects are shared:
// read-only.
//
//go:noinline
func (i *Informer[T]) Indexer() *store.Indexer[T] {
	return (*store.Indexer[T])((*core.Shared)(i).Cache())
}

// AddIndexers adds indexes to the cache, before or after Run (existing
// objects are indexed at once). See store.Indexer.AddIndexers.
//
//go:noinline
func (i *Informer[T]) AddIndexers(indexers store.Indexers[T]) error {
	return (*core.Shared)(i).AddIndexers(cache.IndexersOf(indexers))
}

// Seed stores objs in the cache of an informer that has not been run, as a
// controller test seeds client-go's with GetIndexer().Add(obj): listers and
// indexes see them at once, no handler is called, and HasSynced stays false
// (a test that needs it true runs the informer over a runtimetest.Source
// instead). Objects are stored as given (not copied; a later Seed of the same
// key replaces it), under store.Key; one without metadata.name is an error
// and nothing is stored. Seed returns an error once Run has been called: the
// cache then belongs to the Reflector. Safe for concurrent use.
//
//go:noinline
func (i *Informer[T]) Seed(objs ...T) error {
	untyped := make([]cache.Obj, len(objs))
	for n, o := range objs {
		untyped[n] = o
	}
	return (*core.Shared)(i).Seed(untyped...)
}

// HasSynced reports whether the informer has synced: the cache holds the
// initial list (the FIFO's initial population has been applied) and the
// server has accepted a watch after it, in every namespace of a
// multi-namespace informer (see reflector.Reflector.HasSynced). So a
// client that may list but not watch (RBAC) is never synced, and LastError
// names the watch it was refused. Handlers may still be delivering the
// list: use Registration.HasSynced for a handler's view. It stays true once
// true.
//
//go:noinline
func (i *Informer[T]) HasSynced() bool { return (*core.Shared)(i).HasSynced() }

// Synced returns a channel closed when HasSynced becomes true.
//
//go:noinline
func (i *Informer[T]) Synced() <-chan struct{} { return (*core.Shared)(i).Synced() }

// LastError returns the Reflector's last list/watch error (a 403 on LIST,
// say), or nil once a later list or watch has succeeded. With several
// namespaces (NewMultiNamespace) it joins the last error of each namespace
// that has one, each wrapped as `namespace "a": ...` (errors.As and
// apierrors.IsForbidden see through both).
//
//go:noinline
func (i *Informer[T]) LastError() error { return (*core.Shared)(i).LastError() }

// LastSyncResourceVersion returns the resourceVersion of the last list,
// event or bookmark the Reflector saw ("" before the first list). It may be
// ahead of what the cache has applied (the FIFO holds what lies between):
// to know what a Lister returns, use LastStoreSyncResourceVersion. With
// several namespaces each has its own, and it returns them as
// "a=RV,b=RV" in the order of the sources: for logs, not for a LIST.
//
//go:noinline
func (i *Informer[T]) LastSyncResourceVersion() string {
	return (*core.Shared)(i).LastSyncResourceVersion()
}

// LastStoreSyncResourceVersion returns the resourceVersion of the last list,
// event or bookmark applied to the cache ("" before the first): never ahead
// of what a Lister returns, so a read made after it returned r sees every
// change the server made up to r. For a multi-namespace informer it is the
// oldest of the namespaces' ("" until each has one, or when two are not
// comparable); Indexer().NamespaceResourceVersion gives each. This is
// client-go's Store.LastStoreSyncResourceVersion, which KEP-5647's
// consumers read.
//
//go:noinline
func (i *Informer[T]) LastStoreSyncResourceVersion() string {
	return (*core.Shared)(i).LastStoreSyncResourceVersion()
}

// WaitForResourceVersion blocks until the cache has applied resourceVersion
// rv for namespace ns ("" or any namespace for an informer over all
// namespaces; a multi-namespace informer waits for that namespace's, or for
// every namespace's when ns is ""), or until ctx ends (then it returns ctx's
// error). No goroutine, no polling: the pop loop's write that reaches rv
// wakes it. rv not comparable (store.ErrNotComparable) or a namespace the
// informer does not watch (store.ErrUnknownNamespace) are errors at once.
//
//go:noinline
func (i *Informer[T]) WaitForResourceVersion(ctx context.Context, ns, rv string) error {
	return (*core.Shared)(i).WaitForResourceVersion(ctx, ns, rv)
}

// typedHandler delivers the core's objects to a Handler of T. The core
// stores only Ts (see core.Shared), so the conversions cannot fail; if one
// did, the panic (a *cache.TypeError naming both types) is recovered and
// reported like any handler panic.
type typedHandler[T any] struct{ h Handler[T] }

func (t *typedHandler[T]) OnAdd(obj cache.Obj, initial bool) {
	t.h.OnAdd(cache.MustAs[T](obj, "OnAdd"), initial)
}

func (t *typedHandler[T]) OnUpdate(oldObj, newObj cache.Obj) {
	t.h.OnUpdate(cache.MustAs[T](oldObj, "OnUpdate"), cache.MustAs[T](newObj, "OnUpdate"))
}

func (t *typedHandler[T]) OnDelete(obj cache.Obj, finalStateUnknown bool) {
	t.h.OnDelete(cache.MustAs[T](obj, "OnDelete"), finalStateUnknown)
}

// Listed passes a relist.Mark on to h if h takes them (shard.Filter does);
// other handlers get nothing.
func (t *typedHandler[T]) Listed(m relist.Mark) {
	if l, ok := t.h.(relist.Listener); ok {
		l.Listed(m)
	}
}
