package store

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
)

// Lister reads typed objects from an Indexer, the way controllers read their
// cache. It is a small value meant to be embedded by generated listers; copy
// it freely. Safe for concurrent use. Returned objects are shared with the
// cache: read-only, DeepCopy before mutating.
type Lister[T Object[T]] struct {
	indexer  *Indexer[T]
	resource schema.GroupResource
}

// NewLister returns a Lister over indexer; resource names the type in
// NotFound errors.
func NewLister[T Object[T]](indexer *Indexer[T], resource schema.GroupResource) Lister[T] {
	return Lister[T]{indexer: indexer, resource: resource}
}

// List returns the objects, across all namespaces, whose labels match
// selector (see Indexer.ListSelector for which selectors use the label
// index). The error is always nil; it is there for client-go compatibility.
func (l Lister[T]) List(selector labels.Selector) ([]T, error) {
	return l.indexer.ListSelector("", selector), nil
}

// Get returns the cluster-scoped object named name, or an error for which
// apierrors.IsNotFound is true.
func (l Lister[T]) Get(name string) (T, error) {
	obj, ok := (*cache.Cache)(l.indexer).GetNamespaced("", name)
	if !ok {
		return cache.MustAs[T](obj, "Lister.Get"), apierrors.NewNotFound(l.resource, name)
	}
	return cache.MustAs[T](obj, "Lister.Get"), nil
}

// GetAtLeast is Get once the cache has applied resourceVersion rv (as
// Cache.WaitForResourceVersion; a write's response carries the rv to pass):
// it returns the object at rv or newer, or NotFound when it was deleted at
// or before the cache's resourceVersion. It blocks until then or until ctx
// ends (ctx's error), and returns an error wrapping ErrNotComparable at once
// when rv is not a well-formed resourceVersion.
func (l Lister[T]) GetAtLeast(ctx context.Context, name, rv string) (T, error) {
	if err := (*cache.Cache)(l.indexer).WaitForResourceVersion(ctx, "", rv); err != nil {
		var zero T
		return zero, err
	}
	return l.Get(name)
}

// ByIndex returns the objects indexed under value by the named index, or an
// error wrapping ErrUnknownIndex.
func (l Lister[T]) ByIndex(index, value string) ([]T, error) {
	return l.indexer.ByIndex(index, value)
}

// Namespace returns a lister restricted to one namespace.
func (l Lister[T]) Namespace(namespace string) NamespaceLister[T] {
	return NamespaceLister[T]{indexer: l.indexer, resource: l.resource, namespace: namespace}
}

// NamespaceLister reads the objects of one namespace. A small value meant to
// be embedded; safe for concurrent use; returned objects are read-only.
type NamespaceLister[T Object[T]] struct {
	indexer   *Indexer[T]
	resource  schema.GroupResource
	namespace string
}

// List returns the objects of the namespace whose labels match selector.
// The error is always nil.
func (l NamespaceLister[T]) List(selector labels.Selector) ([]T, error) {
	return l.indexer.ListSelector(l.namespace, selector), nil
}

// Get returns the object namespace/name, or an error for which
// apierrors.IsNotFound is true. It does not allocate the key.
func (l NamespaceLister[T]) Get(name string) (T, error) {
	obj, ok := (*cache.Cache)(l.indexer).GetNamespaced(l.namespace, name)
	if !ok {
		return cache.MustAs[T](obj, "Lister.Get"), apierrors.NewNotFound(l.resource, name)
	}
	return cache.MustAs[T](obj, "Lister.Get"), nil
}

// GetAtLeast is Get once the cache has applied resourceVersion rv for the
// namespace (see Lister.GetAtLeast; a cache partitioned by namespace waits
// for this namespace's resourceVersion only).
func (l NamespaceLister[T]) GetAtLeast(ctx context.Context, name, rv string) (T, error) {
	if err := (*cache.Cache)(l.indexer).WaitForResourceVersion(ctx, l.namespace, rv); err != nil {
		var zero T
		return zero, err
	}
	return l.Get(name)
}

// ByIndex returns the objects of the namespace indexed under value by the
// named index, or an error wrapping ErrUnknownIndex.
func (l NamespaceLister[T]) ByIndex(index, value string) ([]T, error) {
	var out typedObjects[T]
	err := (*cache.Cache)(l.indexer).ByIndexNamespaceInto(index, value, l.namespace, &out)
	return out.list, err
}
