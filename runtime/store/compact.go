package store

import "unique"

// Compact is the default memory transform the informer applies to every
// object before storing it. It mutates obj in place and returns it, so it
// must only be given a freshly decoded object that nothing else references
// (never an object read from a cache).
//
// It drops metadata.managedFields (server-side apply bookkeeping that
// controllers almost never read, often the largest part of the metadata; the
// informer's KeepManagedFields turns this off) and then applies
// InternStrings.
func Compact[T Object[T]](obj T) T {
	obj.SetManagedFields(nil)
	return InternStrings(obj)
}

// InternStrings replaces the strings that repeat across objects with one
// canonical copy each, using Go's unique package: the namespace, label keys
// and values, annotation keys (not values: they are large and rarely
// shared), finalizers, and the kind and apiVersion of owner references. The
// canonical copies are weakly held by unique, so strings no object uses any
// more are freed. It mutates obj in place (no map or slice is reallocated)
// and returns it; the same caveat as Compact applies.
func InternStrings[T Object[T]](obj T) T {
	if ns := obj.GetNamespace(); ns != "" {
		obj.SetNamespace(intern(ns))
	}
	// Assigning to an existing key replaces the stored key string too (the
	// runtime updates string keys on assignment), so keys are interned
	// without rebuilding the map.
	if l := obj.GetLabels(); len(l) > 0 {
		for k, v := range l {
			l[intern(k)] = intern(v)
		}
	}
	if a := obj.GetAnnotations(); len(a) > 0 {
		for k, v := range a {
			a[intern(k)] = v
		}
	}
	if f := obj.GetFinalizers(); len(f) > 0 {
		for n := range f {
			f[n] = intern(f[n])
		}
		obj.SetFinalizers(f)
	}
	if refs := obj.GetOwnerReferences(); len(refs) > 0 {
		for n := range refs {
			refs[n].Kind = intern(refs[n].Kind)
			refs[n].APIVersion = intern(refs[n].APIVersion)
		}
		obj.SetOwnerReferences(refs)
	}
	return obj
}

func intern(s string) string {
	if s == "" {
		return s
	}
	return unique.Make(s).Value()
}
