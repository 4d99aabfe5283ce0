package store

import (
	"context"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
)

// Indexers maps index names to index funcs. An index func computes the
// index values of obj for one named index (client-go's IndexFunc). It must
// be a pure function of obj: the Indexer calls it on add, update and delete
// (on the old object, to find where it was indexed), so it must return the
// same values for the same object every time. Duplicate values are ignored.
// It runs with the cache's write lock held, so it must be quick and must not
// call the Indexer or the Writer (that deadlocks). An error leaves the object
// out of that index (see Options.OnIndexError).
type Indexers[T any] map[string]func(obj T) ([]string, error)

// NamespaceIndex is the name of the built-in index on metadata.namespace that
// every Indexer maintains; namespace-scoped listers use it. Cluster-scoped
// objects are indexed under "" (as client-go's MetaNamespaceIndexFunc does).
const NamespaceIndex = cache.NamespaceIndex

// ErrUnknownIndex is wrapped by the errors of reads that name an index the
// Indexer does not have.
var ErrUnknownIndex = cache.ErrUnknownIndex

// ErrNotComparable is wrapped by the errors of freshness methods when a
// resourceVersion (the one asked about, or the cache's) is not a well-formed
// KEP-5504 resourceVersion, so no order between the two can be known.
var ErrNotComparable = cache.ErrNotComparable

// ErrUnknownNamespace is wrapped by the errors of freshness methods of a
// cache partitioned by namespace (an informer over several namespaces) asked
// about a namespace it does not hold.
var ErrUnknownNamespace = cache.ErrUnknownNamespace

// CompareResourceVersions compares two resourceVersions of the same resource
// as KEP-5504 defines it: -1 when a is older than b, 0 when equal, +1 when
// newer. It returns an error wrapping ErrNotComparable when either is not a
// well-formed resourceVersion (empty, not decimal, leading zeros, "0").
func CompareResourceVersions(a, b string) (int, error) { return cache.CompareResourceVersions(a, b) }

// Options configures New.
type Options[T any] struct {
	// Indexers are the named indices maintained from the start, beside the
	// built-in NamespaceIndex. An entry named NamespaceIndex is ignored (the
	// built-in one is equivalent), so client-go style
	// Indexers{NamespaceIndex: ...} keeps working; so are nil funcs.
	Indexers Indexers[T]

	// OnIndexError is called, with the write lock held, when an index func
	// fails while an object is stored; the object is then not indexed under
	// that index. It must not call back into the Indexer. When nil, the error
	// is logged through klog (index name and key only, never the object).
	OnIndexError func(index, key string, err error)

	// Namespaces, when not empty, partitions the cache's resourceVersion
	// (see Indexer.ResourceVersion) by namespace, for a cache fed by one
	// list and watch per namespace, each with its own resourceVersion. The
	// objects themselves are stored as always.
	Namespaces []string
}

// cacheOptions returns opts for the untyped cache of T. It is the one
// conversion between the two option types; a test sets every field of
// Options in turn and checks that it arrives.
func cacheOptions[T Object[T]](opts Options[T]) cache.Options {
	return cache.Options{
		Indexers:     cache.IndexersOf(opts.Indexers),
		OnIndexError: opts.OnIndexError,
		Namespaces:   opts.Namespaces,
	}
}

// Indexer is the typed read side of a cache of T: a thread-safe store of
// objects keyed by Key ("namespace/name", or "name" for cluster-scoped
// objects) with named indices, the built-in NamespaceIndex and a label index.
//
// All methods are safe for concurrent use by any number of goroutines; reads
// share a lock with the single Writer and never block each other. A read sees
// either none or all of a Writer.Batch. Objects returned by reads are shared
// with the cache and every other reader: they are read-only. Mutate a
// DeepCopy, never the object itself (doing so corrupts the indices too).
//
// Indexer[T] is a view of the runtime's untyped cache, which holds only Ts
// (every write is typed or checked): the view converts and costs nothing to
// make, so the hash table and indexes are compiled once, in the runtime, and
// a package using Indexer[T] compiles a few small functions. They are marked
// go:noinline: Go compiles every method of each Indexer[T] a package names (a
// generated factory names every kind's), and inlining the untyped call into
// each multiplied the compiler's memory (compiling the k8s.io/api factory
// peaked at 416 MB with inlining, 341 MB without); it costs one call per
// method call. Lister's methods, the hot read path, are inlined as before.
type Indexer[T Object[T]] cache.Cache

// Get returns the object stored under key. The object is shared: read-only.
//
//go:noinline
func (i *Indexer[T]) Get(key string) (obj T, exists bool) {
	o, ok := (*cache.Cache)(i).Get(key)
	return cache.MustAs[T](o, "Indexer.Get"), ok
}

// List returns every object in the cache, in no particular order. The slice
// is the caller's; the objects are shared and read-only.
//
//go:noinline
func (i *Indexer[T]) List() []T {
	var out typedObjects[T]
	(*cache.Cache)(i).ListInto(&out)
	return out.list
}

// ListKeys returns the keys of every object in the cache, in no particular
// order.
//
//go:noinline
func (i *Indexer[T]) ListKeys() []string { return (*cache.Cache)(i).ListKeys() }

// Len returns the number of objects in the cache.
//
//go:noinline
func (i *Indexer[T]) Len() int { return (*cache.Cache)(i).Len() }

// ByIndex returns the objects whose index func for indexName returned value.
// An unknown indexName is an error wrapping ErrUnknownIndex.
//
//go:noinline
func (i *Indexer[T]) ByIndex(indexName, value string) ([]T, error) {
	var out typedObjects[T]
	err := (*cache.Cache)(i).ByIndexInto(indexName, value, &out)
	return out.list, err
}

// IndexKeys is ByIndex returning keys instead of objects.
//
//go:noinline
func (i *Indexer[T]) IndexKeys(indexName, value string) ([]string, error) {
	return (*cache.Cache)(i).IndexKeys(indexName, value)
}

// ListIndexFuncValues returns every value indexName currently holds objects
// under (nil for an unknown index).
//
//go:noinline
func (i *Indexer[T]) ListIndexFuncValues(indexName string) []string {
	return (*cache.Cache)(i).ListIndexFuncValues(indexName)
}

// AddIndexers adds indices, at any time: the objects already in the cache are
// indexed at once, under the write lock. Adding an index whose name exists
// already is an error and changes nothing (NamespaceIndex and nil funcs are
// ignored, as in Options).
//
//go:noinline
func (i *Indexer[T]) AddIndexers(indexers Indexers[T]) error {
	return (*cache.Cache)(i).AddIndexers(cache.IndexersOf(indexers))
}

// ListSelector returns the objects in namespace (every namespace when
// namespace is "") whose labels match sel. Equality requirements are
// answered from a label index built on first use of a label key; the rest
// are checked object by object.
//
//go:noinline
func (i *Indexer[T]) ListSelector(namespace string, sel labels.Selector) []T {
	var out typedObjects[T]
	(*cache.Cache)(i).ListSelectorInto(namespace, sel, &out)
	return out.list
}

// ResourceVersion returns the resourceVersion the cache has applied: every
// change the server made up to it is visible to reads made after this call
// returned ("" before the first list is applied; for a cache partitioned by
// namespace, the namespaces' if they are all equal, else "").
//
//go:noinline
func (i *Indexer[T]) ResourceVersion() string { return (*cache.Cache)(i).ResourceVersion() }

// NamespaceResourceVersion returns the resourceVersion the cache has applied
// for the objects of namespace ns (ResourceVersion for an unpartitioned cache;
// "" for a namespace a partitioned cache does not hold).
//
//go:noinline
func (i *Indexer[T]) NamespaceResourceVersion(ns string) string {
	return (*cache.Cache)(i).NamespaceResourceVersion(ns)
}

// HasReached reports whether the cache has applied rv for namespace ns. An rv
// that is not a well-formed resourceVersion is an error wrapping
// ErrNotComparable; a namespace a partitioned cache does not hold, one
// wrapping ErrUnknownNamespace.
//
//go:noinline
func (i *Indexer[T]) HasReached(ns, rv string) (bool, error) {
	return (*cache.Cache)(i).HasReached(ns, rv)
}

// AfterResourceVersion arranges for fn to run once the cache has applied rv
// for namespace ns: at once, on the caller's goroutine, if it has (waiting is
// then false), else on the writer's goroutine after the write that reaches
// it (fn must then be quick and must not call the writer). stop cancels a
// call that has not run and reports whether it did cancel. Errors as for
// HasReached.
//
//go:noinline
func (i *Indexer[T]) AfterResourceVersion(ns, rv string, fn func()) (waiting bool, stop func() bool, err error) {
	return (*cache.Cache)(i).AfterResourceVersion(ns, rv, fn)
}

// WaitForResourceVersion blocks until the cache has applied rv for namespace
// ns or ctx ends (then it returns ctx's cause). Errors as for HasReached.
//
//go:noinline
func (i *Indexer[T]) WaitForResourceVersion(ctx context.Context, ns, rv string) error {
	return (*cache.Cache)(i).WaitForResourceVersion(ctx, ns, rv)
}

// Writer is the single write side of a cache of T, owned by the informer
// (New returns it; everyone else gets the Indexer read side). Its methods
// must not be called concurrently with each other (there is one writer); they
// are safe to call concurrently with any Indexer read. Each write takes the
// cache's write lock for its duration.
type Writer[T Object[T]] cache.Writer

func (w *Writer[T]) w() *cache.Writer { return (*cache.Writer)(w) }

// New returns an empty cache of T and its only writer.
func New[T Object[T]](opts Options[T]) *Writer[T] {
	return (*Writer[T])(cache.New(cacheOptions(opts)))
}

// Indexer returns the read side of the cache. Safe for concurrent use.
func (w *Writer[T]) Indexer() *Indexer[T] { return (*Indexer[T])(w.w().Cache()) }

// Set stores obj under key, replacing and returning any previous object, and
// updates every index. key should be Key(obj); another key works but costs a
// little memory. Blocks while readers hold the lock.
func (w *Writer[T]) Set(key string, obj T) (old T, existed bool) {
	o, ok := w.w().Set(key, obj)
	return cache.MustAs[T](o, "Writer.Set"), ok
}

// Delete removes the object under key from the cache and every index and
// returns it. Deleting a missing key is a no-op that returns existed false.
func (w *Writer[T]) Delete(key string) (old T, existed bool) {
	o, ok := w.w().Delete(key)
	return cache.MustAs[T](o, "Writer.Delete"), ok
}

// SetResourceVersion records that the writes made so far cover the server's
// state up to rv for namespace ns ("" for an unpartitioned cache), and runs
// the AfterResourceVersion callbacks rv reaches. An rv older than the one
// recorded, or not comparable with it, is an error and changes nothing.
func (w *Writer[T]) SetResourceVersion(ns, rv string) error { return w.w().SetResourceVersion(ns, rv) }

// Batch runs fn with exclusive access: readers see either none or all of the
// writes fn makes through tx (a relist is applied atomically this way). fn
// must use only tx: calling the Indexer or the Writer from fn deadlocks. tx is
// invalid once fn returns. Readers block for as long as fn runs. There is no
// rollback: if fn panics, the writes it made stay, the lock is released and
// the panic continues.
func (w *Writer[T]) Batch(fn func(tx Tx[T])) {
	w.w().Batch(func(tx cache.Tx) { fn(typedTx[T]{tx}) })
}

// Tx is the write view handed to Writer.Batch; valid only during fn (using
// it afterwards panics). Its methods behave as the Writer's and Indexer's
// methods of the same names; Get and ListKeys see the writes made earlier in
// the same batch.
type Tx[T Object[T]] interface {
	Get(key string) (T, bool)
	Set(key string, obj T) (old T, existed bool)
	Delete(key string) (old T, existed bool)
	ListKeys() []string
}

type typedTx[T Object[T]] struct{ tx cache.Tx }

func (t typedTx[T]) Get(key string) (T, bool) {
	o, ok := t.tx.Get(key)
	return cache.MustAs[T](o, "Tx.Get"), ok
}

func (t typedTx[T]) Set(key string, obj T) (T, bool) {
	o, ok := t.tx.Set(key, obj)
	return cache.MustAs[T](o, "Tx.Set"), ok
}

func (t typedTx[T]) Delete(key string) (T, bool) {
	o, ok := t.tx.Delete(key)
	return cache.MustAs[T](o, "Tx.Delete"), ok
}

func (t typedTx[T]) ListKeys() []string { return t.tx.ListKeys() }

// typedObjects collects Ts.
type typedObjects[T any] struct{ list []T }

func (o *typedObjects[T]) Reserve(n int) { o.list = make([]T, 0, n) }
func (o *typedObjects[T]) Add(obj cache.Obj) {
	o.list = append(o.list, cache.MustAs[T](obj, "Indexer read"))
}
