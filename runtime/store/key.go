package store

import (
	"unsafe"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
)

// Key returns the cache key of obj: "namespace/name", or "name" for
// cluster-scoped objects (empty namespace). It is the key every stage of the
// runtime uses, compatible with client-go's cache.MetaNamespaceKeyFunc for
// objects that are not tombstones.
func Key(obj interface {
	GetNamespace() string
	GetName() string
}) string {
	return cache.Key(obj)
}

// SplitKey splits a key made by Key into namespace and name. A key without
// "/" is a cluster-scoped name (namespace ""). It returns an error for an empty
// key, an empty namespace or name around the "/", or more than one "/".
func SplitKey(key string) (namespace, name string, err error) { return cache.SplitKey(key) }

// Values returns its arguments without the empty strings, as strings, for
// index funcs: an empty field is not indexed. It takes strings or any
// string type (say Zone), one by one or as a slice (Values(zones...)). It
// returns s itself, as a []string, when nothing is dropped and nil when
// everything is.
//
//	func FooNodeIndexFunc(obj *v1alpha1.Foo) ([]string, error) {
//		return store.Values(obj.Spec.NodeName), nil
//	}
func Values[S ~string](s ...S) []string {
	n := 0
	for _, v := range s {
		if v != "" {
			n++
		}
	}
	switch n {
	case 0:
		return nil
	case len(s):
		// S's underlying type is string: []S and []string have one layout.
		return unsafe.Slice((*string)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
	}
	out := make([]string, 0, n)
	for _, v := range s {
		if v != "" {
			out = append(out, string(v))
		}
	}
	return out
}

// PointerValues is Values for a slice of pointers to string-like values
// ([]*string, []*Zone): nil pointers and empty strings are not indexed.
func PointerValues[S ~string](s []*S) []string {
	var out []string
	for _, v := range s {
		if v != nil && *v != "" {
			out = append(out, string(*v))
		}
	}
	return out
}
