package store

import "github.com/informer-gen/informer-gen/runtime/internal/cache"

// Compact is the full memory transform: it drops metadata.managedFields
// (server-side apply bookkeeping that controllers almost never read, often
// the largest part of the metadata) and then applies InternStrings. It
// mutates obj in place and returns it, so it must only be given a freshly
// decoded object that nothing else references (never an object read from a
// cache).
//
// The informer drops managedFields by default (KeepManagedFields turns that
// off) and interns only when asked to (its InternStrings option), because
// interning costs more CPU per event than it saves memory for many types; see
// docs/performance.md.
func Compact[T Object[T]](obj T) T {
	cache.Compact(obj)
	return obj
}

// InternStrings replaces what repeats across objects with one canonical
// copy each: the namespace, annotation keys (not values: they are large and
// rarely shared), finalizers, and the kind and apiVersion of owner references
// are interned string by string with Go's unique package, and the labels are
// interned as a whole map: objects with equal labels get one shared,
// read-only map whose strings are interned (a map of more than 24 labels has
// its strings interned in place instead). Canonical strings are weakly held
// by unique, so strings no object uses any more are freed (after a small
// per-CPU cache of recently used ones lets go of them). It mutates obj in
// place and returns it; the same caveat as Compact applies. Safe for
// concurrent use on different objects.
//
// Because objects share label maps afterwards, writing to the labels of an
// interned object (which the read-only rule for cached objects forbids
// anyway) changes the labels of every object in the cache with the same
// label set.
func InternStrings[T Object[T]](obj T) T {
	cache.InternStrings(obj)
	return obj
}
