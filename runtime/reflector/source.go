package reflector

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// ListResult is one page of a LIST.
type ListResult[T any] struct {
	Items           []T
	ResourceVersion string
	// Continue is the token for the next page; empty on the last page.
	Continue string
	// RemainingItemCount, when the server knows it, is the number of items
	// after this page; the Reflector uses it to size its buffer.
	RemainingItemCount *int64
}

// ListerWatcher is the source a Reflector reads. Implementations: listwatch (a
// REST client) and runtimetest (a deterministic fake). Watch events carry T as
// runtime.Object; anything else is a malformed event that the Reflector reports
// and survives. Both methods must return promptly once ctx ends, and a watch
// must close its ResultChan after Stop.
type ListerWatcher[T any] interface {
	List(ctx context.Context, opts metav1.ListOptions) (*ListResult[T], error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Sink receives what the Reflector sees (New's second argument, hence
// public: a Reflector can feed a Sink of one's own). *fifo.FIFO[T]
// satisfies it. The Reflector calls Add, Update, Delete and Replace from its Run goroutine.
// None of them should block for long: the watch is not read while they run.
// There is no resync here: the informer resyncs each handler from its cache.
type Sink[T any] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	// Replace hands over a complete list of the resource at resourceVersion
	// (a LIST, or a WatchList's initial events).
	Replace(objs []T, resourceVersion string) error
}

// watchListUnsupported reports whether lw says it cannot serve WatchList
// semantics, with the marker client-go's fake clientsets put on their
// ListerWatchers (IsWatchListSemanticsUnSupported; listwatch.Funcs passes it
// on): such a source never sends the initial-events-end bookmark, so the
// Reflector lists instead of waiting for it.
func watchListUnsupported(lw any) bool {
	m, ok := lw.(interface{ IsWatchListSemanticsUnSupported() bool })
	return ok && m.IsWatchListSemanticsUnSupported()
}
