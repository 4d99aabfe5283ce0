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
//		Items:     func(l *v1alpha1.FooList) []*v1alpha1.Foo { return listwatch.Pointers(l.Items) },
//	}
//
// ListFunc, WatchFunc and Items are required. It is as safe for concurrent
// use as the functions are (clientsets are).
//
// Client, optional, is the clientset the functions come from, as client-go's
// cache.ToListWatcherWithWatchListSemantics takes it: client-go's fake
// clientsets (and client-gen's generated fakes, metadata and dynamic fakes)
// report IsWatchListSemanticsUnSupported() == true, because their watches
// never send the initial-events-end bookmark a WatchList waits for. Funcs
// passes that marker on, so a Reflector fed from a fake through Funcs can
// know to LIST and WATCH instead:
//
//	cs := fake.NewSimpleClientset(objs...)
//	lw := listwatch.Funcs[*v1alpha1.Foo, *v1alpha1.FooList]{..., Client: cs}
type Funcs[T any, L runtime.Object] struct {
	ListFunc  func(ctx context.Context, opts metav1.ListOptions) (L, error)
	WatchFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Items     func(L) []T
	Client    any
}

// watchListSemanticsUnsupported is client-go's marker interface
// (k8s.io/client-go/util/watchlist), checked by its Reflector and by ours.
type watchListSemanticsUnsupported interface {
	IsWatchListSemanticsUnSupported() bool
}

// IsWatchListSemanticsUnSupported reports whether Client says it does not
// support WatchList semantics (client-go's fake clientsets do); false when
// Client is nil or has no such method. It is client-go's marker method, so
// client-go's watchlist.DoesClientNotSupportWatchListSemantics(f) agrees.
func (f Funcs[T, L]) IsWatchListSemanticsUnSupported() bool {
	c, ok := f.Client.(watchListSemanticsUnsupported)
	return ok && c.IsWatchListSemanticsUnSupported()
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
