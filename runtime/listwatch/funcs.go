package listwatch

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// Funcs adapts a pair of typed List and Watch functions, such as those of a
// client-gen clientset, to a reflector.ListerWatcher[T]:
//
//	foos := cs.SamplecontrollerV1alpha1().Foos(namespace)
//	lw := listwatch.Funcs[*v1alpha1.Foo, *v1alpha1.FooList]{
//		ListFunc:  foos.List,
//		WatchFunc: foos.Watch,
//		Items:     func(l *v1alpha1.FooList) []*v1alpha1.Foo { return factory.Pointers(l.Items) },
//	}
//
// All three fields are required. It is as safe for concurrent use as the
// functions are (clientsets are).
type Funcs[T any, L runtime.Object] struct {
	ListFunc  func(ctx context.Context, opts metav1.ListOptions) (L, error)
	WatchFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Items     func(L) []T
}

var _ reflector.ListerWatcher[*metav1.PartialObjectMetadata] = Funcs[*metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList]{}

// List calls ListFunc and returns its items with the list's metadata.
func (f Funcs[T, L]) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[T], error) {
	list, err := f.ListFunc(ctx, opts)
	if err != nil {
		return nil, err
	}
	acc, err := meta.ListAccessor(list)
	if err != nil {
		return nil, fmt.Errorf("list %T: %w", list, err)
	}
	return &reflector.ListResult[T]{
		Items:              f.Items(list),
		ResourceVersion:    acc.GetResourceVersion(),
		Continue:           acc.GetContinue(),
		RemainingItemCount: acc.GetRemainingItemCount(),
	}, nil
}

// Watch calls WatchFunc.
func (f Funcs[T, L]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return f.WatchFunc(ctx, opts)
}
