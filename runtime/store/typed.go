package store

import (
	"context"

	"k8s.io/apimachinery/pkg/labels"
)

// Indexer is the typed read side of a cache: a view of a Cache whose objects
// are all T. Its methods are the Cache's (same contract, same concurrency)
// with T in place of Obj. A view holds nothing but the Cache, so it costs
// nothing to make and compiles to a few small functions per type (the
// machinery is the Cache's, compiled once).
type Indexer[T Object[T]] struct{ c *Cache }

// IndexerOf returns the typed view of c, whose objects must all be T (an
// object of another type reads as T's zero value).
func IndexerOf[T Object[T]](c *Cache) *Indexer[T] { return &Indexer[T]{c} }

// Cache returns the untyped cache behind i.
func (i *Indexer[T]) Cache() *Cache { return i.c }

// Get returns the object stored under key. The object is shared: read-only.
func (i *Indexer[T]) Get(key string) (obj T, exists bool) {
	o, ok := i.c.Get(key)
	return as[T](o), ok
}

// List returns every object in the cache, in no particular order. The slice
// is the caller's; the objects are shared and read-only.
func (i *Indexer[T]) List() []T {
	var out typedObjects[T]
	i.c.list(&out)
	return out.list
}

// ListKeys returns the keys of every object in the cache (see Cache.ListKeys).
func (i *Indexer[T]) ListKeys() []string { return i.c.ListKeys() }

// Len returns the number of objects in the cache.
func (i *Indexer[T]) Len() int { return i.c.Len() }

// ByIndex returns the objects whose index func for indexName returned value
// (see Cache.ByIndex).
func (i *Indexer[T]) ByIndex(indexName, value string) ([]T, error) {
	var out typedObjects[T]
	err := i.c.byIndex(indexName, value, &out)
	return out.list, err
}

// IndexKeys is ByIndex returning keys instead of objects.
func (i *Indexer[T]) IndexKeys(indexName, value string) ([]string, error) {
	return i.c.IndexKeys(indexName, value)
}

// ListIndexFuncValues returns every value indexName currently holds objects
// under (see Cache.ListIndexFuncValues).
func (i *Indexer[T]) ListIndexFuncValues(indexName string) []string {
	return i.c.ListIndexFuncValues(indexName)
}

// AddIndexers adds typed indices (see Cache.AddIndexers).
func (i *Indexer[T]) AddIndexers(indexers Indexers[T]) error {
	return i.c.AddIndexers(UntypedIndexers(indexers))
}

// ListSelector returns the objects in namespace (every namespace when
// namespace is "") whose labels match sel (see Cache.ListSelector).
func (i *Indexer[T]) ListSelector(namespace string, sel labels.Selector) []T {
	var out typedObjects[T]
	i.c.listSelector(namespace, sel, &out)
	return out.list
}

// ResourceVersion returns the resourceVersion the cache has applied (see
// Cache.ResourceVersion).
func (i *Indexer[T]) ResourceVersion() string { return i.c.ResourceVersion() }

// NamespaceResourceVersion returns the resourceVersion the cache has applied
// for namespace ns (see Cache.NamespaceResourceVersion).
func (i *Indexer[T]) NamespaceResourceVersion(ns string) string {
	return i.c.NamespaceResourceVersion(ns)
}

// HasReached reports whether the cache has applied rv for namespace ns (see
// Cache.HasReached).
func (i *Indexer[T]) HasReached(ns, rv string) (bool, error) { return i.c.HasReached(ns, rv) }

// WaitForResourceVersion blocks until the cache has applied rv for namespace
// ns or ctx ends (see Cache.WaitForResourceVersion).
func (i *Indexer[T]) WaitForResourceVersion(ctx context.Context, ns, rv string) error {
	return i.c.WaitForResourceVersion(ctx, ns, rv)
}

// Writer is the typed view of a CacheWriter: the single write side of a
// cache of T. Same contract as CacheWriter.
type Writer[T Object[T]] struct {
	w  *CacheWriter
	ix *Indexer[T]
}

// New returns an empty cache of T and its only writer.
func New[T Object[T]](opts Options[T]) *Writer[T] {
	w := NewCache(Options[Obj]{Indexers: UntypedIndexers(opts.Indexers), OnIndexError: opts.OnIndexError, Namespaces: opts.Namespaces})
	return &Writer[T]{w: w, ix: IndexerOf[T](w.Cache())}
}

// Indexer returns the read side of the cache. Safe for concurrent use.
func (w *Writer[T]) Indexer() *Indexer[T] { return w.ix }

// Set stores obj under key (see CacheWriter.Set).
func (w *Writer[T]) Set(key string, obj T) (old T, existed bool) {
	o, ok := w.w.Set(key, obj)
	return as[T](o), ok
}

// Delete removes the object under key (see CacheWriter.Delete).
func (w *Writer[T]) Delete(key string) (old T, existed bool) {
	o, ok := w.w.Delete(key)
	return as[T](o), ok
}

// SetResourceVersion records the resourceVersion the writes so far cover
// (see CacheWriter.SetResourceVersion).
func (w *Writer[T]) SetResourceVersion(ns, rv string) error { return w.w.SetResourceVersion(ns, rv) }

// Batch runs fn with exclusive access (see CacheWriter.Batch).
func (w *Writer[T]) Batch(fn func(tx Tx[T])) {
	w.w.Batch(func(tx CacheTx) { fn(typedTx[T]{tx}) })
}

// Tx is the typed write view handed to Writer.Batch; see CacheTx.
type Tx[T Object[T]] interface {
	Get(key string) (T, bool)
	Set(key string, obj T) (old T, existed bool)
	Delete(key string) (old T, existed bool)
	ListKeys() []string
}

type typedTx[T Object[T]] struct{ tx CacheTx }

func (t typedTx[T]) Get(key string) (T, bool) {
	o, ok := t.tx.Get(key)
	return as[T](o), ok
}

func (t typedTx[T]) Set(key string, obj T) (T, bool) {
	o, ok := t.tx.Set(key, obj)
	return as[T](o), ok
}

func (t typedTx[T]) Delete(key string) (T, bool) {
	o, ok := t.tx.Delete(key)
	return as[T](o), ok
}

func (t typedTx[T]) ListKeys() []string { return t.tx.ListKeys() }

// UntypedIndexers returns indexers as index funcs over Obj, for a Cache whose
// objects are all T. Nil funcs stay nil.
func UntypedIndexers[T Object[T]](indexers Indexers[T]) Indexers[Obj] {
	if indexers == nil {
		return nil
	}
	out := make(Indexers[Obj], len(indexers))
	for name, fn := range indexers {
		if fn == nil {
			out[name] = nil
			continue
		}
		out[name] = func(o Obj) ([]string, error) { return fn(as[T](o)) }
	}
	return out
}

// as returns o as T, or T's zero value when o is nil or not a T.
func as[T any](o Obj) T {
	t, _ := o.(T)
	return t
}

// collector receives the objects of a read, under the read lock: reserve,
// at most once and first, with the number of objects expected, then add for
// each one.
type collector interface {
	reserve(n int)
	add(o Obj)
}

// objects collects Objs.
type objects []Obj

func (o *objects) reserve(n int) { *o = make([]Obj, 0, n) }
func (o *objects) add(obj Obj)   { *o = append(*o, obj) }

// typedObjects collects Ts.
type typedObjects[T any] struct{ list []T }

func (o *typedObjects[T]) reserve(n int) { o.list = make([]T, 0, n) }
func (o *typedObjects[T]) add(obj Obj)   { o.list = append(o.list, as[T](obj)) }
