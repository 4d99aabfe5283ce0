// Package clientgo lets a controller written against client-go's informers
// keep its event handlers while it moves to this runtime: the handlers get the
// calls, arguments and tombstones client-go would give them, and can be
// rewritten to typed informer.Handlers later:
//
//	// was: fooInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{...})
//	reg, err := clientgo.AddHandler(foos.Informer(), cache.ResourceEventHandlerFuncs{...}, informer.HandlerOptions{})
//
// It is a package of its own so that only controllers that use it compile
// client-go's tools/cache (package informer does not import it).
package clientgo

import (
	"k8s.io/client-go/tools/cache"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// Handler adapts a client-go cache.ResourceEventHandler (for example
// cache.ResourceEventHandlerFuncs or cache.FilteringResourceEventHandler) to an
// informer.Handler[T]. Objects are passed as T in an interface{}. A deletion whose final
// state is unknown is delivered as client-go delivers it: OnDelete gets a
// cache.DeletedFinalStateUnknown{Key, Obj} with the object's cache key
// ("namespace/name" or "name", client-go's MetaNamespaceKeyFunc) and its last
// known state, so cache.DeletionHandlingMetaNamespaceKeyFunc and the usual
// "tombstone, ok := obj.(cache.DeletedFinalStateUnknown)" code work unchanged.
//
// The handler is called as any informer.Handler is: from the registration's own
// goroutine, one call at a time, in order. Objects are shared with the cache
// and must not be mutated.
func Handler[T store.Object[T]](h cache.ResourceEventHandler) informer.Handler[T] {
	return clientGoHandler[T]{h}
}

type clientGoHandler[T store.Object[T]] struct{ h cache.ResourceEventHandler }

func (c clientGoHandler[T]) OnAdd(obj T, isInInitialList bool) { c.h.OnAdd(obj, isInInitialList) }
func (c clientGoHandler[T]) OnUpdate(oldObj, newObj T)         { c.h.OnUpdate(oldObj, newObj) }
func (c clientGoHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	if finalStateUnknown {
		c.h.OnDelete(cache.DeletedFinalStateUnknown{Key: store.Key(obj), Obj: obj})
		return
	}
	c.h.OnDelete(obj)
}

// comparableObject is what client-go's typed handlers need of T (cache.Object
// is comparable); every pointer to an API type is.
type comparableObject[T any] interface {
	store.Object[T]
	comparable
}

// TypedHandler adapts a client-go cache.TypedResourceEventHandler[T]
// (for example cache.TypedResourceEventHandlerFuncs[T]) to an informer.Handler[T]. As
// with client-go's typed informers, OnDelete gets a cache.DeletedObject[T]:
// OptionalObj is the object (its last known state when the final state is
// unknown), and FinalStateUnknown is nil, or for a deletion noticed on relist
// a cache.DeletedFinalStateUnknown with the object's cache key. Calls are made
// as for Handler.
func TypedHandler[T comparableObject[T]](h cache.TypedResourceEventHandler[T]) informer.Handler[T] {
	return typedClientGoHandler[T]{h}
}

type typedClientGoHandler[T comparableObject[T]] struct {
	h cache.TypedResourceEventHandler[T]
}

func (c typedClientGoHandler[T]) OnAdd(obj T, isInInitialList bool) { c.h.OnAdd(obj, isInInitialList) }
func (c typedClientGoHandler[T]) OnUpdate(oldObj, newObj T)         { c.h.OnUpdate(oldObj, newObj) }
func (c typedClientGoHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	d := cache.DeletedObject[T]{OptionalObj: obj}
	if finalStateUnknown {
		d.FinalStateUnknown = &cache.DeletedFinalStateUnknown{Key: store.Key(obj), Obj: obj}
	}
	c.h.OnDelete(d)
}

// AddHandler registers a client-go event handler on inf: it is
// inf.AddHandler(Handler[T](h), opts), which spells out T. As client-go's
// AddEventHandler it is called with informer.HandlerOptions{} (the
// informer's default resync); as AddEventHandlerWithResyncPeriod, with
// informer.HandlerOptions{ResyncPeriod: d}. The Registration replaces
// client-go's ResourceEventHandlerRegistration (HasSynced, and RemoveHandler
// to unregister). It returns inf.AddHandler's error.
//
// A typed handler needs no such helper, as T is inferred from it:
// inf.AddHandler(TypedHandler(h), opts).
func AddHandler[T store.Object[T]](inf *informer.Informer[T], h cache.ResourceEventHandler, opts informer.HandlerOptions) (*informer.Registration, error) {
	return inf.AddHandler(Handler[T](h), opts)
}
