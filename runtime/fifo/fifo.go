// Package fifo is the DeltaFIFO stage: the queue between the Reflector
// (producer) and the informer (the single consumer).
package fifo

import (
	"context"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// SKELETON: signatures agreed between stages; bodies are filled in by the fifo owner.

// DeltaType says what happened to an object.
type DeltaType uint8

const (
	Added DeltaType = iota + 1
	Updated
	Deleted
	// Replaced is an object seen in a relist (List or WatchList).
	Replaced
	// Sync is a periodic resync of an object already in the cache.
	Sync
)

// Delta is one change to one key.
type Delta[T any] struct {
	Type DeltaType
	Key  string
	// Object is the new state, or for Deleted the last known state.
	Object T
	// FinalStateUnknown is set on a Deleted delta that Replace synthesized: the
	// object vanished while the watch was down and Object is the last state known
	// to this process (a tombstone), not the state at deletion.
	FinalStateUnknown bool
}

// Batch is what Pop hands to the consumer. Deltas are in arrival order. When
// Atomic is set (a relist), the consumer must apply all Deltas as one
// transaction (store.Writer.Batch) so readers never see half a relist.
type Batch[T any] struct {
	Deltas          []Delta[T]
	Atomic          bool
	ResourceVersion string
}

// KnownObjects is the consumer's view of what it has applied; Replace and
// Resync use it to synthesize tombstones and Sync deltas. *store.Indexer[T]
// satisfies it.
type KnownObjects[T any] interface {
	Get(key string) (T, bool)
	ListKeys() []string
}

// Options configures New.
type Options[T store.Object[T]] struct {
	// Known is the consumer's store (required for tombstones and resync).
	Known KnownObjects[T]
	// Transform, when set, runs on every object before it is queued.
	Transform func(T) (T, error)
}

// FIFO is a DeltaFIFO. Producer methods and Pop are safe for concurrent use;
// there must be only one consumer.
type FIFO[T store.Object[T]] struct{ _ [0]T }

func New[T store.Object[T]](opts Options[T]) *FIFO[T]             { panic("unimplemented") }
func (f *FIFO[T]) Add(obj T) error                                { panic("unimplemented") }
func (f *FIFO[T]) Update(obj T) error                             { panic("unimplemented") }
func (f *FIFO[T]) Delete(obj T) error                             { panic("unimplemented") }
func (f *FIFO[T]) Replace(objs []T, resourceVersion string) error { panic("unimplemented") }
func (f *FIFO[T]) Resync() error                                  { panic("unimplemented") }
func (f *FIFO[T]) Pop(ctx context.Context, process func(Batch[T]) error) error {
	panic("unimplemented")
}
func (f *FIFO[T]) Close()          { panic("unimplemented") }
func (f *FIFO[T]) HasSynced() bool { panic("unimplemented") }
func (f *FIFO[T]) Len() int        { panic("unimplemented") }
