package store

import "github.com/informer-gen/informer-gen/runtime/internal/cache"

// InternStrings replaces what repeats across objects with one canonical
// copy each: the namespace, annotation keys (not values: they are large and
// rarely shared), finalizers, and the kind and apiVersion of owner references
// are interned string by string with Go's unique package, and the labels are
// interned as a whole map: objects with equal labels get one shared,
// read-only map whose strings are interned (a map of more than 24 labels has
// its strings interned in place instead). Canonical strings are weakly held
// by unique, so strings no object uses any more are freed (after a small
// per-CPU cache of recently used ones lets go of them). It mutates obj in
// place and returns it, so it must only be given a freshly decoded object
// that nothing else references (never an object read from a cache). Safe for
// concurrent use on different objects.
//
// The informer applies it to every object it caches when its InternStrings
// option is set (after dropping managedFields, unless KeepManagedFields);
// call it directly only for objects that do not come through an informer.
// Interning costs more CPU per event than it saves memory for many types;
// see docs/performance.md.
//
// Because objects share label maps afterwards, writing to the labels of an
// interned object (which the read-only rule for cached objects forbids
// anyway) changes the labels of every object in the cache with the same
// label set.
func InternStrings[T Object[T]](obj T) T {
	cache.InternStrings(obj)
	return obj
}
