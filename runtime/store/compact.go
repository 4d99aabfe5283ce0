package store

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
// more are freed (after a small per-CPU cache of recently used ones lets go
// of them, see intern.go). It mutates obj in place (no map or slice is
// reallocated, and a string that is canonical already is not written) and
// returns it; the same caveat as Compact applies. Safe for concurrent use on
// different objects.
func InternStrings[T Object[T]](obj T) T {
	in := interners.Get().(*interner)
	defer interners.Put(in)
	if ns := obj.GetNamespace(); ns != "" {
		if c := in.intern(ns); !sameString(c, ns) {
			obj.SetNamespace(c)
		}
	}
	if l := obj.GetLabels(); len(l) > 0 {
		// Assigning to an existing key replaces the stored key string too
		// (the runtime updates string keys on assignment), so keys are
		// interned without rebuilding the map.
		for k, v := range l {
			if ck, cv := in.intern(k), in.intern(v); !sameString(ck, k) || !sameString(cv, v) {
				l[ck] = cv
			}
		}
	}
	if a := obj.GetAnnotations(); len(a) > 0 {
		for k, v := range a {
			if ck := in.intern(k); !sameString(ck, k) {
				a[ck] = v
			}
		}
	}
	if f := obj.GetFinalizers(); len(f) > 0 {
		changed := false
		for n := range f {
			changed = in.internInto(&f[n]) || changed
		}
		if changed {
			obj.SetFinalizers(f)
		}
	}
	if refs := obj.GetOwnerReferences(); len(refs) > 0 {
		changed := false
		for n := range refs {
			changed = in.internInto(&refs[n].Kind) || changed
			changed = in.internInto(&refs[n].APIVersion) || changed
		}
		if changed {
			obj.SetOwnerReferences(refs)
		}
	}
	return obj
}
