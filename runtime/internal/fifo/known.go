package fifo

import (
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/known"
)

// Lookup returns what a relist's codec may reuse instead of decoding (see
// runtime/internal/known): the object Known holds under a key, when its
// resourceVersion is the one asked for. It returns nil before the first
// Replace (the cache is empty: nothing to look up) and without Known.
// Replace queues such an object as it is, without Transform (it was
// transformed when it was first queued) and the consumer's cache keeps it
// as it is.
func (f *FIFO[T]) Lookup() known.Lookup[T] {
	f.mu.Lock()
	populated := f.populated
	f.mu.Unlock()
	if f.known == nil || !populated {
		return nil
	}
	return f.cached
}

// Lookup is the FIFO's Lookup.
func (p *Partition[T]) Lookup() known.Lookup[T] { return p.f.Lookup() }

func (f *FIFO[T]) cached(namespace, name, rv []byte) (T, bool) {
	var zero T
	key := string(name)
	if len(namespace) > 0 {
		key = string(namespace) + "/" + key
	}
	obj, ok := f.known.Get(key)
	if !ok || obj.GetResourceVersion() != string(rv) {
		return zero, false
	}
	f.reused.Add(1)
	return obj, true
}

// knownAs reports whether o is the very object Known holds under its key
// (one that Lookup handed out), and that key.
func (f *FIFO[T]) knownAs(o T) (string, bool) {
	key := cache.Key(o)
	k, ok := f.known.Get(key)
	return key, ok && cache.Same(k, o)
}
