package core

import (
	"context"
	"time"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// Handler receives the core's notifications, untyped; informer.Handler[T] is
// the contract (the typed view wraps it once, at registration).
type Handler interface {
	OnAdd(obj cache.Obj, isInInitialList bool)
	OnUpdate(oldObj, newObj cache.Obj)
	OnDelete(obj cache.Obj, finalStateUnknown bool)
}

// Options configures NewShared: informer.Options[T] without the type
// parameter (see there for each field's contract), resolved. It is the one
// internal value the informer, its Reflectors and FIFO read. It is made in
// one place only, informer.Options[T]'s core method (one line per field,
// whose test sets every field in turn), when package informer's New or
// NewMultiNamespace builds an informer; the factory builds its informers
// through them, so it never makes one, and nothing converts one back.
type Options struct {
	Indexers          cache.Indexers
	Transform         func(cache.Obj) (cache.Obj, error)
	KeepManagedFields bool
	InternStrings     bool
	ResyncPeriod      time.Duration
	Reflector         reflector.Options
	HandlerPanic      func(ctx context.Context, p HandlerPanicInfo)
	Metrics           Metrics
}

// Metrics is informer.Metrics over the core's Registration.
type Metrics interface {
	Handler(reg *Registration) func(event string)
	Process() func(d time.Duration, queued int, resourceVersion string)
}

// HandlerPanicInfo is informer.HandlerPanicInfo over the core's
// Registration.
type HandlerPanicInfo struct {
	Registration *Registration
	Event        string
	Key          string
	Value        any
}

// HandlerOptions is informer.HandlerOptions (the typed view converts one to
// the other: their fields must stay identical).
type HandlerOptions struct {
	ResyncPeriod time.Duration
}

// minResyncPeriod is the smallest resync period a handler gets (as in
// client-go: a resync lists the whole cache); informer.HandlerOptions
// documents it.
const minResyncPeriod = time.Second
