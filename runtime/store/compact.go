package store

import "unsafe"

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
	CompactObj(obj)
	return obj
}

// CompactObj is Compact for an untyped object.
func CompactObj(obj Obj) {
	obj.SetManagedFields(nil)
	InternObj(obj)
}

// InternStrings replaces what repeats across objects with one canonical
// copy each: the namespace, annotation keys (not values: they are large and
// rarely shared), finalizers, and the kind and apiVersion of owner references
// are interned string by string with Go's unique package, and the labels are
// interned as a whole map: objects with equal labels get one shared,
// read-only map whose strings are interned (see intern.go; a map of more than
// 24 labels has its strings interned in place instead). Canonical strings are
// weakly held by unique, so strings no object uses any more are freed (after
// a small per-CPU cache of recently used ones lets go of them). It mutates
// obj in place and returns it; the same caveat as Compact applies. Safe for
// concurrent use on different objects.
//
// Because objects share label maps afterwards, writing to the labels of an
// interned object (which the read-only rule for cached objects forbids
// anyway) changes the labels of every object in the cache with the same
// label set.
func InternStrings[T Object[T]](obj T) T {
	InternObj(obj)
	return obj
}

// InternObj is InternStrings for an untyped object.
func InternObj(obj Obj) {
	in := interners.Get().(*interner)
	defer interners.Put(in)
	if ns := obj.GetNamespace(); ns != "" {
		if c := in.intern(ns); !sameString(c, ns) {
			obj.SetNamespace(c)
		}
	}
	if l := obj.GetLabels(); len(l) > 0 && len(l) <= labelSetMax {
		if c := in.internLabels(l); !sameMap(c, l) {
			obj.SetLabels(c)
		}
	} else if len(l) > 0 {
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
}

// sameMap reports whether a and b are the same map (not just equal ones).
func sameMap(a, b map[string]string) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}
