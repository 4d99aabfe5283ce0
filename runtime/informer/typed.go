package informer

import (
	"context"
	"reflect"

	"github.com/informer-gen/informer-gen/runtime/internal/untypedlw"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// Informer is a shared index informer of T: the typed view of a Shared (see
// Shared for what it does). Its methods are the Shared's with T in place of
// store.Obj; each is a call and a conversion, so a package using Informer[T]
// compiles a few small functions, not the informer.
//
// All methods are safe for concurrent use. Run runs it once.
type Informer[T store.Object[T]] struct {
	s  *Shared
	ix *store.Indexer[T]
}

// New returns an informer over lw. It starts nothing: handlers and indexers
// may be added before Run, and Indexer() is usable (empty) at once.
func New[T store.Object[T]](lw reflector.ListerWatcher[T], opts Options[T]) *Informer[T] {
	return View[T](NewShared(untypedlw.New(lw), reflect.TypeFor[T](), UntypedOptions(opts)))
}

// NewMultiNamespace returns one informer over several namespaces (see
// NewSharedMultiNamespace).
func NewMultiNamespace[T store.Object[T]](sources []NamespaceSource[T], opts Options[T]) *Informer[T] {
	untyped := make([]NamespaceSource[store.Obj], len(sources))
	for n, src := range sources {
		untyped[n] = NamespaceSource[store.Obj]{Namespace: src.Namespace, ListerWatcher: untypedlw.New(src.ListerWatcher)}
	}
	return View[T](NewSharedMultiNamespace(untyped, reflect.TypeFor[T](), UntypedOptions(opts)))
}

// View returns the typed view of s, whose objects must be T (NewShared's
// objectType): the factory builds Shareds without generics and hands out
// their views.
func View[T store.Object[T]](s *Shared) *Informer[T] {
	return &Informer[T]{s: s, ix: store.IndexerOf[T](s.Cache())}
}

// UntypedOptions returns opts for a Shared of T: index funcs and Transform
// take and return store.Obj.
func UntypedOptions[T store.Object[T]](opts Options[T]) Options[store.Obj] {
	out := Options[store.Obj]{
		Indexers:          store.UntypedIndexers(opts.Indexers),
		KeepManagedFields: opts.KeepManagedFields,
		InternStrings:     opts.InternStrings,
		ResyncPeriod:      opts.ResyncPeriod,
		Reflector:         opts.Reflector,
		HandlerPanic:      opts.HandlerPanic,
		Metrics:           opts.Metrics,
	}
	if fn := opts.Transform; fn != nil {
		out.Transform = func(o store.Obj) (store.Obj, error) {
			t, _ := o.(T)
			return fn(t)
		}
	}
	return out
}

// TypedOptions is the inverse of UntypedOptions: opts (of a Shared whose
// objects are all T) for code that edits them as Options[T]. Index funcs
// are not carried over (they are the type's, added after the edit); a
// Transform returning another type than T returns a nil T.
func TypedOptions[T store.Object[T]](opts Options[store.Obj]) Options[T] {
	out := Options[T]{
		KeepManagedFields: opts.KeepManagedFields,
		InternStrings:     opts.InternStrings,
		ResyncPeriod:      opts.ResyncPeriod,
		Reflector:         opts.Reflector,
		HandlerPanic:      opts.HandlerPanic,
		Metrics:           opts.Metrics,
	}
	if fn := opts.Transform; fn != nil {
		out.Transform = func(obj T) (T, error) {
			o, err := fn(obj)
			t, _ := o.(T)
			return t, err
		}
	}
	return out
}

// Shared returns the untyped core of i.
func (i *Informer[T]) Shared() *Shared { return i.s }

// Name returns the informer's name (Options.Reflector.Name, or the Go type
// of T), used in logs and in WaitForCacheSync's errors.
func (i *Informer[T]) Name() string { return i.s.Name() }

// Run runs the informer until ctx ends; see Shared.Run.
func (i *Informer[T]) Run(ctx context.Context) error { return i.s.Run(ctx) }

// AddHandler registers h; see Shared.AddHandler.
func (i *Informer[T]) AddHandler(h Handler[T], opts HandlerOptions) (*Registration, error) {
	if h == nil {
		return i.s.AddHandler(nil, opts)
	}
	return i.s.AddHandler(typedHandler[T]{h}, opts)
}

// RemoveHandler unregisters r; see Shared.RemoveHandler.
func (i *Informer[T]) RemoveHandler(r *Registration) error { return i.s.RemoveHandler(r) }

// Handlers returns the current registrations; see Shared.Handlers.
func (i *Informer[T]) Handlers() []*Registration { return i.s.Handlers() }

// Indexer returns the informer's cache (read side). Objects are shared:
// read-only.
func (i *Informer[T]) Indexer() *store.Indexer[T] { return i.ix }

// AddIndexers adds indexes to the cache, before or after Run; see
// Shared.AddIndexers.
func (i *Informer[T]) AddIndexers(indexers store.Indexers[T]) error {
	return i.s.AddIndexers(store.UntypedIndexers(indexers))
}

// Seed stores objs in the cache of an informer that has not been run; see
// Shared.Seed.
func (i *Informer[T]) Seed(objs ...T) error {
	untyped := make([]store.Obj, len(objs))
	for n, o := range objs {
		untyped[n] = o
	}
	return i.s.Seed(untyped...)
}

// HasSynced reports whether the cache holds the initial list and the server
// accepted a watch after it; see Shared.HasSynced.
func (i *Informer[T]) HasSynced() bool { return i.s.HasSynced() }

// Synced returns a channel closed when HasSynced becomes true.
func (i *Informer[T]) Synced() <-chan struct{} { return i.s.Synced() }

// LastError returns the last list/watch error; see Shared.LastError.
func (i *Informer[T]) LastError() error { return i.s.LastError() }

// LastSyncResourceVersion returns the resourceVersion of the last list,
// event or bookmark seen; see Shared.LastSyncResourceVersion.
func (i *Informer[T]) LastSyncResourceVersion() string { return i.s.LastSyncResourceVersion() }

// LastStoreSyncResourceVersion returns the resourceVersion the cache has
// applied, never ahead of what a Lister returns; see
// Shared.LastStoreSyncResourceVersion.
func (i *Informer[T]) LastStoreSyncResourceVersion() string {
	return i.s.LastStoreSyncResourceVersion()
}

// WaitForResourceVersion blocks until the cache has applied rv for namespace
// ns or ctx ends; see Shared.WaitForResourceVersion.
func (i *Informer[T]) WaitForResourceVersion(ctx context.Context, ns, rv string) error {
	return i.s.WaitForResourceVersion(ctx, ns, rv)
}

// typedHandler delivers a Shared's objects to a Handler of T.
type typedHandler[T any] struct{ h Handler[T] }

func (t typedHandler[T]) OnAdd(obj store.Obj, initial bool) {
	o, _ := obj.(T)
	t.h.OnAdd(o, initial)
}

func (t typedHandler[T]) OnUpdate(oldObj, newObj store.Obj) {
	o, _ := oldObj.(T)
	n, _ := newObj.(T)
	t.h.OnUpdate(o, n)
}

func (t typedHandler[T]) OnDelete(obj store.Obj, finalStateUnknown bool) {
	o, _ := obj.(T)
	t.h.OnDelete(o, finalStateUnknown)
}
