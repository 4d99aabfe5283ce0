// Package reflector lists and watches a resource and feeds the changes to a Sink
// (the DeltaFIFO).
package reflector

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// SKELETON: signatures agreed between stages; bodies are filled in by the reflector owner.

// ListResult is one page of a LIST.
type ListResult[T any] struct {
	Items              []T
	ResourceVersion    string
	Continue           string
	RemainingItemCount *int64
}

// ListerWatcher is the source a Reflector reads. Implementations: listwatch (a
// REST client) and runtimetest (a deterministic fake). Watch events carry T as
// runtime.Object; anything else is a malformed event that the Reflector reports
// and survives.
type ListerWatcher[T any] interface {
	List(ctx context.Context, opts metav1.ListOptions) (*ListResult[T], error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Sink receives what the Reflector sees. *fifo.FIFO[T] satisfies it.
type Sink[T any] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	Replace(objs []T, resourceVersion string) error
	Resync() error
}

// Options configures New.
type Options struct {
	// Name appears in logs and errors, e.g. "foos.samplecontroller.example.com".
	Name string
	// PageSize of the initial LIST; 0 means 500.
	PageSize int64
	// ResyncPeriod, when positive, calls Sink.Resync that often.
	ResyncPeriod time.Duration
	// WatchList selects streaming initial lists: nil tries it and falls back to
	// list+watch when the server refuses; false never tries it.
	WatchList *bool
	// WatchErrorHandler is called with every list/watch error (after logging).
	WatchErrorHandler func(ctx context.Context, err error)
}

// Reflector keeps a Sink in step with the server.
type Reflector[T store.Object[T]] struct{ _ [0]T }

func New[T store.Object[T]](lw ListerWatcher[T], sink Sink[T], opts Options) *Reflector[T] {
	panic("unimplemented")
}
func (r *Reflector[T]) Run(ctx context.Context) error   { panic("unimplemented") }
func (r *Reflector[T]) LastSyncResourceVersion() string { panic("unimplemented") }
func (r *Reflector[T]) LastError() error                { panic("unimplemented") }
