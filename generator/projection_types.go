package generator

import (
	"go/types"
	"strings"
)

// How a projected field's Go type may be held, copied and tagged: locks, types that decode themselves, copy shapes, DeepCopyInto, nameable types.

// holdsLock reports whether a value of t holds a lock by value, as go vet's
// copylocks check sees it: a type whose pointer is a sync.Locker but whose
// value is not, directly or in a struct field or array element.
func holdsLock(t types.Type, seen map[types.Type]bool) bool {
	if _, ok := t.Underlying().(*types.Interface); ok {
		return false
	}
	if _, ok := t.(*types.Pointer); ok {
		return false
	}
	isLocker := func(ms *types.MethodSet) bool {
		return ms.Lookup(nil, "Lock") != nil && ms.Lookup(nil, "Unlock") != nil
	}
	if isLocker(types.NewMethodSet(types.NewPointer(t))) && !isLocker(types.NewMethodSet(t)) {
		return true
	}
	if seen == nil {
		seen = map[types.Type]bool{}
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Array:
		return holdsLock(u.Elem(), seen)
	case *types.Struct:
		for i := range u.NumFields() {
			if holdsLock(u.Field(i).Type(), seen) {
				return true
			}
		}
	}
	return false
}

// decodesItself names the method by which *t decodes its own JSON
// (encoding/json's Unmarshaler or TextUnmarshaler, also promoted from an
// embedded field), or "" when encoding/json decodes it member by member.
func decodesItself(t types.Type) string {
	ms := types.NewMethodSet(types.NewPointer(t))
	for _, m := range []string{"UnmarshalJSON", "UnmarshalText"} {
		if ms.Lookup(nil, m) != nil {
			return m
		}
	}
	return ""
}

// tagOf returns the struct tag of the field found in s.source (through
// embedded structs as findField walks them).
func (s *ProjStruct) tagOf(found *foundField) string {
	st := s.source
	for i, g := range found.goPath {
		for j := range st.NumFields() {
			f := st.Field(j)
			if f.Name() != g {
				continue
			}
			if i == len(found.goPath)-1 {
				return st.Tag(j)
			}
			t := f.Type()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem()
			}
			st, _ = t.Underlying().(*types.Struct)
			break
		}
		if st == nil {
			return ""
		}
	}
	return ""
}

// jsonTagName is the JSON name of a generated field.
func jsonTagName(f *ProjField) string {
	if name, _, _ := strings.Cut(f.JSONTag, ","); name != "" {
		return name
	}
	return f.GoName
}

// copyShape says how DeepCopyInto copies a leaf of type t, and the element
// type of a pointer, slice or map; msg is set for a shape it cannot copy.
func copyShape(t types.Type) (shape string, elem types.Type, msg string) {
	if !nameable(t) {
		return "", nil, "which generated code in another package cannot name"
	}
	if plainData(t, nil) {
		return copyNone, nil, ""
	}
	if hasDeepCopyInto(t) {
		switch t.Underlying().(type) {
		case *types.Slice, *types.Map:
			return copyIntoNonNil, nil, ""
		}
		return copyInto, nil, ""
	}
	switch u := t.(type) {
	case *types.Pointer:
		switch {
		case plainData(u.Elem(), nil):
			return copyPointerPlain, u.Elem(), ""
		case hasDeepCopyInto(u.Elem()):
			return copyPointerInto, u.Elem(), ""
		}
	case *types.Slice:
		switch {
		case plainData(u.Elem(), nil):
			return copySlicePlain, u.Elem(), ""
		case hasDeepCopyInto(u.Elem()):
			return copySliceInto, u.Elem(), ""
		}
	case *types.Map:
		switch {
		case !plainData(u.Key(), nil):
		case plainData(u.Elem(), nil):
			return copyMapPlain, u.Elem(), ""
		case hasDeepCopyInto(u.Elem()):
			return copyMapInto, u.Elem(), ""
		}
	}
	return "", nil, "which the generated DeepCopy cannot copy (no DeepCopyInto method, and not plain data, or a pointer, slice or map of plain data or of a type with DeepCopyInto)"
}

// plainData reports whether a value of t is copied fully by assignment: no
// pointers, slices, maps, interfaces, channels or funcs, recursively.
func plainData(t types.Type, seen map[types.Type]bool) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.UnsafePointer
	case *types.Array:
		return plainData(u.Elem(), seen)
	case *types.Struct:
		if seen == nil {
			seen = map[types.Type]bool{}
		}
		if seen[t] {
			return true
		}
		seen[t] = true
		for i := range u.NumFields() {
			if !plainData(u.Field(i).Type(), seen) {
				return false
			}
		}
		return true
	}
	return false
}

// hasDeepCopyInto reports whether t (or *t) has DeepCopyInto(*t).
func hasDeepCopyInto(t types.Type) bool {
	sel := types.NewMethodSet(types.NewPointer(t)).Lookup(nil, "DeepCopyInto")
	if sel == nil {
		return false
	}
	sig, ok := sel.Obj().Type().(*types.Signature)
	return ok && sig.Params().Len() == 1 && sig.Results().Len() == 0 &&
		types.Identical(sig.Params().At(0).Type(), types.NewPointer(t))
}

// nameable reports whether code outside t's package can spell t.
func nameable(t types.Type) bool {
	switch u := t.(type) {
	case *types.Named:
		if u.Obj().Pkg() != nil && !u.Obj().Exported() {
			return false
		}
		if args := u.TypeArgs(); args != nil {
			for i := range args.Len() {
				if !nameable(args.At(i)) {
					return false
				}
			}
		}
		return true
	case *types.Alias:
		return nameable(types.Unalias(u))
	case *types.Pointer:
		return nameable(u.Elem())
	case *types.Slice:
		return nameable(u.Elem())
	case *types.Array:
		return nameable(u.Elem())
	case *types.Map:
		return nameable(u.Key()) && nameable(u.Elem())
	case *types.Basic:
		return true
	case *types.Struct:
		for i := range u.NumFields() {
			if !u.Field(i).Exported() || !nameable(u.Field(i).Type()) {
				return false
			}
		}
		return true
	}
	return false
}
