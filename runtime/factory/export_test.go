package factory

import (
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// PerNamespace returns o with newLW as its source, called once per
// namespace the informer watches ("" for all): the per-namespace sources
// the REST source has, for tests of several namespaces without a server.
func PerNamespace[T store.Object[T]](o TypeOptions[T], newLW func(namespace string) reflector.ListerWatcher[T]) TypeOptions[T] {
	o.perNamespace = newLW
	return o
}
