package runtimetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// Event is one handler call a Recorder saw.
type Event[T any] struct {
	// Type is the handler method called: "add", "update" or "delete" (the
	// names the informer gives events, as in informer.HandlerPanicInfo).
	Type string
	Key  string
	// Obj is the new object (add, update) or the last known one (delete).
	Obj T
	// Old is the previous object of an update.
	Old T
	// InInitialList is OnAdd's isInInitialList.
	InInitialList bool
	// FinalStateUnknown is OnDelete's finalStateUnknown.
	FinalStateUnknown bool
}

// Recorder is an informer handler for tests: it implements the informer's
// Handler[T] interface (OnAdd, OnUpdate, OnDelete), keeps the last state it
// saw per key and every call in order, and lets a test wait until that state
// satisfies a condition — without sleeping or polling.
//
// It also checks the handler contract as it goes: an add for a key it already
// holds, or an update or delete for a key it does not hold, is recorded as a
// violation (see Err). Objects are kept as received; they are shared with the
// informer's cache, so neither the Recorder nor the test may mutate them.
//
// The zero value is an empty Recorder, ready to use; it must not be copied
// once used (use a *Recorder). A Recorder is safe for concurrent use. Its
// handler methods never block beyond a short critical section.
type Recorder[T store.Object[T]] struct {
	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on every event
	state      map[string]T
	events     []Event[T]
	violations []error
}

// lock takes r's lock and makes its map and channel on first use, so the
// zero Recorder is ready.
func (r *Recorder[T]) lock() {
	r.mu.Lock()
	if r.state == nil {
		r.state = make(map[string]T)
		r.changed = make(chan struct{})
	}
}

// OnAdd implements the informer's Handler.
func (r *Recorder[T]) OnAdd(obj T, isInInitialList bool) {
	key := store.Key(obj)
	r.lock()
	defer r.mu.Unlock()
	if _, ok := r.state[key]; ok {
		r.violations = append(r.violations, fmt.Errorf("add of %s, which the handler already holds", key))
	}
	r.state[key] = obj
	r.appendLocked(Event[T]{Type: "add", Key: key, Obj: obj, InInitialList: isInInitialList})
}

// OnUpdate implements the informer's Handler.
func (r *Recorder[T]) OnUpdate(oldObj, newObj T) {
	key := store.Key(newObj)
	r.lock()
	defer r.mu.Unlock()
	if _, ok := r.state[key]; !ok {
		r.violations = append(r.violations, fmt.Errorf("update of %s, which the handler does not hold", key))
	}
	r.state[key] = newObj
	r.appendLocked(Event[T]{Type: "update", Key: key, Obj: newObj, Old: oldObj})
}

// OnDelete implements the informer's Handler.
func (r *Recorder[T]) OnDelete(obj T, finalStateUnknown bool) {
	key := store.Key(obj)
	r.lock()
	defer r.mu.Unlock()
	if _, ok := r.state[key]; !ok {
		r.violations = append(r.violations, fmt.Errorf("delete of %s, which the handler does not hold", key))
	}
	delete(r.state, key)
	r.appendLocked(Event[T]{Type: "delete", Key: key, Obj: obj, FinalStateUnknown: finalStateUnknown})
}

func (r *Recorder[T]) appendLocked(ev Event[T]) {
	r.events = append(r.events, ev)
	close(r.changed)
	r.changed = make(chan struct{})
}

// State returns the last object seen per key (deleted keys absent). The map
// is a copy; the objects are shared and read-only.
func (r *Recorder[T]) State() map[string]T {
	r.lock()
	defer r.mu.Unlock()
	return maps.Clone(r.state)
}

// Events returns every handler call seen so far, in order.
func (r *Recorder[T]) Events() []Event[T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Err returns the handler-contract violations seen so far (adds of held
// keys, updates and deletes of unknown keys) joined, or nil.
func (r *Recorder[T]) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.violations...)
}

// WaitFor blocks until cond returns true, or ctx ends. cond is called at once
// and again after every handler call, with the recorder's lock held: it must
// be quick, must not call the Recorder, and must not keep the map. When ctx
// ends first, WaitFor returns an error wrapping ctx's error.
//
// Typical use, with the expected state taken from a Source:
//
//	want := src.Snapshot()
//	err := rec.WaitFor(ctx, func(got map[string]T) bool { return sameRVs(got, want) })
func (r *Recorder[T]) WaitFor(ctx context.Context, cond func(state map[string]T) bool) error {
	for {
		r.lock()
		ok, ch, n := cond(r.state), r.changed, len(r.events)
		r.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("runtimetest: condition not met after %d handler calls: %w", n, ctx.Err())
		}
	}
}

// SameResourceVersions reports whether got and want hold the same keys with
// the same resourceVersions. A Source gives every write a new
// resourceVersion, so equal resourceVersions mean equal objects.
func SameResourceVersions[T store.Object[T]](got, want map[string]T) bool {
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok || g.GetResourceVersion() != w.GetResourceVersion() {
			return false
		}
	}
	return true
}
