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
