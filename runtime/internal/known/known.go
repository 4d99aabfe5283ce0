// Package known lets a relist reuse what the cache already holds. A relist
// (a LIST or a WatchList after the first) sends every object again, and most
// are unchanged: the same key at the same resourceVersion is the same
// object, since a resourceVersion is the etcd revision of the object's last
// write. Decoding them again allocates a second copy of the whole cache
// while the first is still live (the relist replaces it atomically), which
// is what doubles a process's memory during a relist.
//
// The Reflector puts a Lookup into the context of its LIST and WatchList
// requests; a codec that can read an item's name, namespace and
// resourceVersion before decoding it (wire's protobuf and JSON codecs) asks
// the Lookup first and hands on the cached object instead of decoding a
// copy.
package known

import "context"

// Lookup returns the object the cache holds under namespace and name when
// its resourceVersion is rv. It must not retain its arguments (they are
// windows into a read buffer), is called from the request's goroutine, and
// must be safe to call concurrently with the cache's writer.
type Lookup[T any] func(namespace, name, rv []byte) (T, bool)

type ctxKey struct{}

// With returns ctx carrying l for the requests made with it.
func With[T any](ctx context.Context, l Lookup[T]) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// From returns the Lookup ctx carries for objects of type T, or nil.
func From[T any](ctx context.Context) Lookup[T] {
	l, _ := ctx.Value(ctxKey{}).(Lookup[T])
	return l
}
