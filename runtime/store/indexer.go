package store

import (
	"k8s.io/apimachinery/pkg/labels"
)

// SKELETON: signatures agreed between stages; bodies are filled in by the store owner.

// IndexFunc computes the index values of obj for one named index. It must be
// a pure function of obj: the Indexer calls it on add, update and delete.
type IndexFunc[T any] func(obj T) ([]string, error)

// Indexers maps index names to index funcs.
type Indexers[T any] map[string]IndexFunc[T]

// NamespaceIndex is the name of the built-in index on metadata.namespace that
// every Indexer maintains; namespace-scoped listers use it.
const NamespaceIndex = "namespace"

// Options configures New.
type Options[T any] struct {
	// Indexers are the named indices maintained from the start, beside the
	// built-in NamespaceIndex.
	Indexers Indexers[T]
}

// Indexer is the read side of the cache. Safe for concurrent use by any number
// of readers. Returned objects are shared: do not mutate them.
type Indexer[T Object[T]] struct {
	_ [0]T
}

// Writer is the single write side of the cache, owned by the informer.
// Not safe for concurrent use: there is one writer.
type Writer[T Object[T]] struct {
	_ [0]T
}

// New returns an empty cache and its only writer.
func New[T Object[T]](opts Options[T]) *Writer[T] { panic("unimplemented") }

// Key returns the cache key of obj: "namespace/name", or "name" for
// cluster-scoped objects.
func Key(obj interface {
	GetNamespace() string
	GetName() string
}) string {
	panic("unimplemented")
}

// SplitKey splits a key made by Key into namespace and name.
func SplitKey(key string) (namespace, name string, err error) { panic("unimplemented") }

func (i *Indexer[T]) Get(key string) (obj T, exists bool)                    { panic("unimplemented") }
func (i *Indexer[T]) List() []T                                              { panic("unimplemented") }
func (i *Indexer[T]) ListKeys() []string                                     { panic("unimplemented") }
func (i *Indexer[T]) Len() int                                               { panic("unimplemented") }
func (i *Indexer[T]) ListSelector(namespace string, sel labels.Selector) []T { panic("unimplemented") }
func (i *Indexer[T]) ByIndex(indexName, value string) ([]T, error)           { panic("unimplemented") }
func (i *Indexer[T]) IndexKeys(indexName, value string) ([]string, error)    { panic("unimplemented") }
func (i *Indexer[T]) ListIndexFuncValues(indexName string) []string          { panic("unimplemented") }
func (i *Indexer[T]) AddIndexers(indexers Indexers[T]) error                 { panic("unimplemented") }
func (w *Writer[T]) Indexer() *Indexer[T]                                    { panic("unimplemented") }
func (w *Writer[T]) Set(key string, obj T) (old T, existed bool)             { panic("unimplemented") }
func (w *Writer[T]) Delete(key string) (old T, existed bool)                 { panic("unimplemented") }

// Batch runs fn with exclusive access: readers see either none or all of the
// writes fn makes through tx (a relist is applied atomically this way).
func (w *Writer[T]) Batch(fn func(tx Tx[T])) { panic("unimplemented") }

// Tx is the write view handed to Writer.Batch; valid only during fn.
type Tx[T Object[T]] interface {
	Get(key string) (T, bool)
	Set(key string, obj T) (old T, existed bool)
	Delete(key string) (old T, existed bool)
	ListKeys() []string
}
