package cache

import "unsafe"

// Compact is the informer's default transform with InternStrings: it drops
// metadata.managedFields and then applies InternStrings, in place.
func Compact(obj Obj) {
	obj.SetManagedFields(nil)
	InternStrings(obj)
}

// InternStrings is store.InternStrings for an untyped object (see there for
// the contract): it interns what repeats across objects, in place.
func InternStrings(obj Obj) {
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
