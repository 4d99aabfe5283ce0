// Package untypedlw turns a typed ListerWatcher into one of cache.Obj, the
// source the runtime's untyped informer core reads (non-generic code,
// compiled once for every type).
package untypedlw

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// New returns lw as a ListerWatcher of cache.Obj: List copies each page's
// items into a []cache.Obj, Watch is lw's. It keeps lw's
// IsWatchListSemanticsUnSupported marker.
func New[T cache.Obj](lw reflector.ListerWatcher[T]) reflector.ListerWatcher[cache.Obj] {
	return untyped[T]{lw}
}

type untyped[T cache.Obj] struct{ lw reflector.ListerWatcher[T] }

func (u untyped[T]) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[cache.Obj], error) {
	page, err := u.lw.List(ctx, opts)
	if page == nil {
		return nil, err
	}
	items := make([]cache.Obj, len(page.Items))
	for n, o := range page.Items {
		items[n] = o
	}
	return &reflector.ListResult[cache.Obj]{
		Items:              items,
		ResourceVersion:    page.ResourceVersion,
		Continue:           page.Continue,
		RemainingItemCount: page.RemainingItemCount,
	}, err
}

func (u untyped[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return u.lw.Watch(ctx, opts)
}

// IsWatchListSemanticsUnSupported passes on lw's marker (see
// reflector.Options.WatchList).
func (u untyped[T]) IsWatchListSemanticsUnSupported() bool {
	m, ok := u.lw.(interface{ IsWatchListSemanticsUnSupported() bool })
	return ok && m.IsWatchListSemanticsUnSupported()
}
