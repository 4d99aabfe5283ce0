package store

import "github.com/informer-gen/informer-gen/runtime/internal/cache"

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

// Values returns its arguments without the empty strings, for index funcs:
// an empty field is not indexed. It returns s itself when nothing is dropped
// and nil when everything is.
//
//	func FooNodeIndexFunc(obj *v1alpha1.Foo) ([]string, error) {
//		return store.Values(obj.Spec.NodeName), nil
//	}
func Values(s ...string) []string {
	n := 0
	for _, v := range s {
		if v != "" {
			n++
		}
	}
	switch n {
	case len(s):
		if n == 0 {
			return nil
		}
		return s
	case 0:
		return nil
	}
	out := make([]string, 0, n)
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// StringValues is Values for a slice of a named string type (say []Zone):
// the non-empty elements as strings, nil when there are none.
func StringValues[S ~string](s []S) []string {
	var out []string
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
