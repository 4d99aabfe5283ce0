package store

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Object is the constraint every runtime stage puts on its type parameter T:
// a pointer to an API type (for example *v1alpha1.Foo) that carries ObjectMeta,
// is a runtime.Object, and deep-copies to its own type.
//
// Generated deepcopy code satisfies it for every root type:
//
//	var _ store.Object[*v1alpha1.Foo] = (*v1alpha1.Foo)(nil)
type Object[T any] interface {
	metav1.Object
	runtime.Object
	DeepCopy() T
}

// Obj is what the untyped cache (Cache) and the runtime's untyped cores hold:
// any API object with ObjectMeta. Every Object[T] is an Obj. The typed API
// (Indexer[T], Lister[T], informer.Informer[T]) is a thin view over cores
// that hold Obj, so that code generated for many types compiles the runtime's
// machinery once, in the runtime, instead of once per package that uses it
// (see docs/generated-code.md).
type Obj interface {
	metav1.Object
	runtime.Object
}
