// Package informer is the SharedIndexInformer stage: it runs a Reflector into
// a DeltaFIFO, applies the deltas to the Indexer and fans them out to handlers.
package informer

import (
	"context"
	"time"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// SKELETON: signatures agreed between stages; bodies are filled in by the informer owner.

// Handler receives typed notifications. Tombstones are unwrapped: OnDelete gets
// the last known object and whether its final state is unknown.
type Handler[T any] interface {
	OnAdd(obj T, isInInitialList bool)
	OnUpdate(oldObj, newObj T)
	OnDelete(obj T, finalStateUnknown bool)
}

// HandlerFuncs adapts plain funcs to Handler; nil funcs are skipped.
type HandlerFuncs[T any] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj T, finalStateUnknown bool)
}

func (h HandlerFuncs[T]) OnAdd(obj T, initial bool) {
	if h.AddFunc != nil {
		h.AddFunc(obj, initial)
	}
}
func (h HandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if h.UpdateFunc != nil {
		h.UpdateFunc(oldObj, newObj)
	}
}
func (h HandlerFuncs[T]) OnDelete(obj T, finalStateUnknown bool) {
	if h.DeleteFunc != nil {
		h.DeleteFunc(obj, finalStateUnknown)
	}
}

// Options configures New.
type Options[T store.Object[T]] struct {
	Indexers store.Indexers[T]
	// Transform runs on every object before it is stored.
	Transform func(T) (T, error)
	// KeepManagedFields turns off the default transform that drops
	// metadata.managedFields.
	KeepManagedFields bool
	// ResyncPeriod is the default resync of handlers added without their own.
	ResyncPeriod time.Duration
	Reflector    reflector.Options
}

// HandlerOptions configures one handler registration.
type HandlerOptions struct {
	// ResyncPeriod, when positive, delivers OnUpdate(obj, obj) for every cached
	// object at that period to this handler.
	ResyncPeriod time.Duration
}

// Informer is a shared index informer.
type Informer[T store.Object[T]] struct{ _ [0]T }

// Registration is the handle AddHandler returns.
type Registration struct{}

func New[T store.Object[T]](lw reflector.ListerWatcher[T], opts Options[T]) *Informer[T] {
	panic("unimplemented")
}
func (i *Informer[T]) Run(ctx context.Context) error { panic("unimplemented") }
func (i *Informer[T]) AddHandler(h Handler[T], opts HandlerOptions) (*Registration, error) {
	panic("unimplemented")
}
func (i *Informer[T]) RemoveHandler(r *Registration) error          { panic("unimplemented") }
func (i *Informer[T]) Indexer() *store.Indexer[T]                   { panic("unimplemented") }
func (i *Informer[T]) AddIndexers(indexers store.Indexers[T]) error { panic("unimplemented") }
func (i *Informer[T]) HasSynced() bool                              { panic("unimplemented") }
func (i *Informer[T]) Synced() <-chan struct{}                      { panic("unimplemented") }
func (i *Informer[T]) LastError() error                             { panic("unimplemented") }
func (i *Informer[T]) LastSyncResourceVersion() string              { panic("unimplemented") }
func (r *Registration) HasSynced() bool                             { panic("unimplemented") }
func (r *Registration) Synced() <-chan struct{}                     { panic("unimplemented") }
func (r *Registration) LastError() error                            { panic("unimplemented") }

// Syncable is anything WaitForCacheSync can wait for: informers and registrations.
type Syncable interface {
	Synced() <-chan struct{}
	LastError() error
}

// WaitForCacheSync blocks until every s has synced (nil) or ctx ends; then it
// returns an error naming the unsynced ones and wrapping their LastError (for
// example a 403 on LIST) rather than a bare timeout.
func WaitForCacheSync(ctx context.Context, s ...Syncable) error { panic("unimplemented") }
