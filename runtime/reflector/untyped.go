package reflector

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
)

// Untyped returns lw as a ListerWatcher of cache.Obj, for the runtime's
// untyped cores (core.Shared): List copies each page's items into a
// []cache.Obj, Watch is lw's. It keeps lw's IsWatchListSemanticsUnSupported
// marker.
func Untyped[T cache.Obj](lw ListerWatcher[T]) ListerWatcher[cache.Obj] {
	return untyped[T]{lw}
}

type untyped[T cache.Obj] struct{ lw ListerWatcher[T] }

func (u untyped[T]) List(ctx context.Context, opts metav1.ListOptions) (*ListResult[cache.Obj], error) {
	page, err := u.lw.List(ctx, opts)
	if page == nil {
		return nil, err
	}
	items := make([]cache.Obj, len(page.Items))
	for n, o := range page.Items {
		items[n] = o
	}
	return &ListResult[cache.Obj]{
		Items:              items,
		ResourceVersion:    page.ResourceVersion,
		Continue:           page.Continue,
		RemainingItemCount: page.RemainingItemCount,
	}, err
}

func (u untyped[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return u.lw.Watch(ctx, opts)
}

func (u untyped[T]) IsWatchListSemanticsUnSupported() bool { return watchListUnsupported(u.lw) }
