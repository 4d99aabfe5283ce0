// Package untypedlw turns a typed ListerWatcher into one of cache.Obj, the
// source the runtime's untyped informer core reads (non-generic code,
// compiled once for every type).
package untypedlw

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/known"
	"github.com/informer-gen/informer-gen/runtime/internal/listpage"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// New returns lw as a ListerWatcher of cache.Obj. It is a listpage.Appender,
// so the Reflector has each page's items appended to its list as cache.Obj
// straight from lw's page (no intermediate []cache.Obj); List, for any other
// caller, copies a page's items into a new []cache.Obj. Watch is lw's. It
// keeps lw's IsWatchListSemanticsUnSupported marker.
//
// A source made by Typed is unwrapped: New(Typed[T](lw)) is lw itself.
func New[T cache.Obj](lw reflector.ListerWatcher[T]) reflector.ListerWatcher[cache.Obj] {
	if v, ok := lw.(*typedView[T]); ok {
		return v.lw
	}
	return &untyped[T]{lw}
}

// Typed returns lw, a source of objects of T held as cache.Obj, as a
// ListerWatcher of T: for code without type parameters (the factory's) that
// builds its sources untyped and hands them to a typed constructor
// (informer.New), whose New unwraps it at no cost per object. Its List, for
// any other caller, copies a page's items into a new []T and fails with a
// cache.TypeError on an item that is not a T.
func Typed[T cache.Obj](lw reflector.ListerWatcher[cache.Obj]) reflector.ListerWatcher[T] {
	return &typedView[T]{lw}
}

type typedView[T cache.Obj] struct {
	lw reflector.ListerWatcher[cache.Obj]
}

func (v *typedView[T]) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[T], error) {
	page, err := v.lw.List(ctx, opts)
	if page == nil {
		return nil, err
	}
	items := make([]T, len(page.Items))
	for n, o := range page.Items {
		t, terr := cache.As[T](o, "list")
		if terr != nil {
			return nil, terr
		}
		items[n] = t
	}
	return &reflector.ListResult[T]{
		Items:              items,
		ResourceVersion:    page.ResourceVersion,
		Continue:           page.Continue,
		RemainingItemCount: page.RemainingItemCount,
	}, err
}

func (v *typedView[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return v.lw.Watch(ctx, opts)
}

// untyped has pointer methods only, as typedView: value methods would add a
// wrapper per method and type in every package that calls New.
type untyped[T cache.Obj] struct{ lw reflector.ListerWatcher[T] }

func (u *untyped[T]) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[cache.Obj], error) {
	page, err := u.lw.List(typed[T](ctx), opts)
	if page == nil {
		return nil, err
	}
	return &reflector.ListResult[cache.Obj]{
		Items:              appendObjs(nil, page.Items),
		ResourceVersion:    page.ResourceVersion,
		Continue:           page.Continue,
		RemainingItemCount: page.RemainingItemCount,
	}, err
}

// AppendList is List appending the page's items to items (see
// listpage.Appender): one copy of each page, into the Reflector's list.
func (u *untyped[T]) AppendList(ctx context.Context, opts metav1.ListOptions, items []cache.Obj) ([]cache.Obj, listpage.Page, bool, error) {
	page, err := u.lw.List(typed[T](ctx), opts)
	if page == nil || err != nil {
		return items, listpage.Page{}, page != nil, err
	}
	p := listpage.Page{ResourceVersion: page.ResourceVersion, Continue: page.Continue, RemainingItemCount: page.RemainingItemCount}
	return appendObjs(listpage.Reserve(items, len(page.Items), p), page.Items), p, true, nil
}

func appendObjs[T cache.Obj](dst []cache.Obj, objs []T) []cache.Obj {
	dst = slices.Grow(dst, len(objs))
	for _, o := range objs {
		dst = append(dst, o)
	}
	return dst
}

func (u *untyped[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return u.lw.Watch(typed[T](ctx), opts)
}

// typed returns ctx with the relist Lookup it carries (the Reflector's, of
// cache.Obj: see runtime/internal/known) as one of T, which lw's codec asks
// for.
func typed[T cache.Obj](ctx context.Context) context.Context {
	l := known.From[cache.Obj](ctx)
	if l == nil {
		return ctx
	}
	return known.With(ctx, known.Lookup[T](func(namespace, name, rv []byte) (T, bool) {
		o, ok := l(namespace, name, rv)
		if !ok {
			var zero T
			return zero, false
		}
		t, ok := o.(T)
		return t, ok
	}))
}

// IsWatchListSemanticsUnSupported passes on lw's marker (see
// reflector.Options.WatchList).
func (u *untyped[T]) IsWatchListSemanticsUnSupported() bool {
	m, ok := u.lw.(interface{ IsWatchListSemanticsUnSupported() bool })
	return ok && m.IsWatchListSemanticsUnSupported()
}
