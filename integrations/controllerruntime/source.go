package controllerruntime

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// Kind returns a controller-runtime source of T's events from inf (a
// generated informer: factory.Samplecontroller().V1().Foos().Informer()),
// with a typed event handler and typed predicates, as source.Kind does for
// the manager's cache:
//
//	ctrl.NewControllerManagedBy(mgr).Named("foo").
//		WatchesRawSource(crinformers.Kind(foos.Informer(),
//			&handler.TypedEnqueueRequestForObject[*v1.Foo]{},
//			predicate.TypedGenerationChangedPredicate[*v1.Foo]{})).
//		Complete(r)
//
// Start adds a handler to inf (it does not run inf: the factory does, see
// Runnable) and removes it when Start's ctx ends. WaitForSync returns once
// the handler has received the initial list, or an error wrapping inf's
// LastError when its ctx ends first (a timeout; a cancelled ctx returns nil,
// as controller-runtime's Kind does). Events are handed to h on the
// handler's own goroutine, one at a time, in the order of the informer.
func Kind[T store.Object[T]](inf *informer.Informer[T], h handler.TypedEventHandler[T, reconcile.Request], preds ...predicate.TypedPredicate[T]) source.TypedSyncingSource[reconcile.Request] {
	return TypedKind(inf, h, preds...)
}

// TypedKind is Kind for controllers whose requests are of another type R.
func TypedKind[T store.Object[T], R comparable](inf *informer.Informer[T], h handler.TypedEventHandler[T, R], preds ...predicate.TypedPredicate[T]) source.TypedSyncingSource[R] {
	return &kindSource[T, R]{inf: inf, h: h, preds: preds, started: make(chan struct{})}
}

type kindSource[T store.Object[T], R comparable] struct {
	inf   *informer.Informer[T]
	h     handler.TypedEventHandler[T, R]
	preds []predicate.TypedPredicate[T]

	once    sync.Once
	started chan struct{} // closed when Start ran
	reg     *informer.Registration
	err     error
}

func (s *kindSource[T, R]) String() string { return "informer-gen source: " + s.inf.Name() }

// Start registers the handler. It returns at once.
func (s *kindSource[T, R]) Start(ctx context.Context, q workqueue.TypedRateLimitingInterface[R]) error {
	if s.inf == nil || s.h == nil {
		return errors.New("informer-gen source: nil informer or handler")
	}
	ran := false
	s.once.Do(func() {
		ran = true
		defer close(s.started)
		s.reg, s.err = s.inf.AddHandler(&eventHandler[T, R]{ctx: ctx, q: q, h: s.h, preds: s.preds}, informer.HandlerOptions{})
		if s.err != nil {
			return
		}
		reg := s.reg
		context.AfterFunc(ctx, func() { _ = s.inf.RemoveHandler(reg) })
	})
	if !ran {
		return fmt.Errorf("%s: Start called twice", s)
	}
	return s.err
}

// WaitForSync waits for the handler to have received the initial list.
func (s *kindSource[T, R]) WaitForSync(ctx context.Context) error {
	select {
	case <-s.started:
	case <-ctx.Done():
		return s.syncErr(ctx)
	}
	if s.err != nil {
		return s.err
	}
	select {
	case <-s.reg.Synced():
		return nil
	case <-ctx.Done():
		return s.syncErr(ctx)
	}
}

func (s *kindSource[T, R]) syncErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	if err := s.inf.LastError(); err != nil {
		return fmt.Errorf("timed out waiting for %s to sync: last error: %w", s, err)
	}
	return fmt.Errorf("timed out waiting for %s to sync: %w", s, ctx.Err())
}

// eventHandler turns informer callbacks into controller-runtime events.
type eventHandler[T store.Object[T], R comparable] struct {
	ctx   context.Context
	q     workqueue.TypedRateLimitingInterface[R]
	h     handler.TypedEventHandler[T, R]
	preds []predicate.TypedPredicate[T]
}

func (e *eventHandler[T, R]) OnAdd(obj T, initial bool) {
	ev := event.TypedCreateEvent[T]{Object: obj, IsInInitialList: initial}
	for _, p := range e.preds {
		if !p.Create(ev) {
			return
		}
	}
	e.h.Create(e.ctx, ev, e.q)
}

func (e *eventHandler[T, R]) OnUpdate(oldObj, newObj T) {
	ev := event.TypedUpdateEvent[T]{ObjectOld: oldObj, ObjectNew: newObj}
	for _, p := range e.preds {
		if !p.Update(ev) {
			return
		}
	}
	e.h.Update(e.ctx, ev, e.q)
}

func (e *eventHandler[T, R]) OnDelete(obj T, finalStateUnknown bool) {
	ev := event.TypedDeleteEvent[T]{Object: obj, DeleteStateUnknown: finalStateUnknown}
	for _, p := range e.preds {
		if !p.Delete(ev) {
			return
		}
	}
	e.h.Delete(e.ctx, ev, e.q)
}
