package reflector

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/known"
	"github.com/informer-gen/informer-gen/runtime/internal/listpage"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
)

// list reads the collection with a consistent LIST (every page, if
// Options.PageSize pages it, at the first page's resourceVersion), replaces
// the Sink's content with it (the Mark it hands over carries gen: see
// replace) and returns the list's resourceVersion.
func (r *Reflector[T]) list(ctx context.Context, gen uint64) (uint64, error) {
	logger := klog.FromContext(ctx)
	opts := metav1.ListOptions{Limit: r.opts.PageSize}
	var (
		items []T
		rv    string
		pages int
	)
	// A LIST counts as one request for the Budget, however many pages.
	if err := r.pacer.request(ctx); err != nil {
		return 0, fmt.Errorf("list %s: %w", r.opts.Name, err)
	}
	ctx, stop := r.withKnown(ctx)
	defer stop()
	for {
		next, page, ok, err := r.listPage(ctx, opts, items)
		if err != nil && opts.Continue != "" && isExpired(err) {
			// The snapshot behind the continue token was compacted: read
			// everything at once, as client-go's pager does.
			logger.V(2).Info("continue token expired; listing without paging", "pages", pages, "err", err)
			opts = metav1.ListOptions{}
			items, rv = items[:0], ""
			next, page, ok, err = r.listPage(ctx, opts, items)
		}
		if err == nil && !ok {
			err = errors.New("lister returned no page and no error")
		}
		if err != nil {
			return 0, fmt.Errorf("list %s: %w", r.opts.Name, err)
		}
		items = next
		pages++
		if rv == "" {
			rv = page.ResourceVersion
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	n, ok := parseRV(rv)
	if !ok {
		return 0, fmt.Errorf("list %s: %w %s", r.opts.Name, ErrInvalidResourceVersion, quoteRV(rv))
	}
	if err := r.checkItems("list", items, rv); err != nil {
		return 0, r.counted(err)
	}
	if err := r.replace(items, rv, gen); err != nil {
		return 0, fmt.Errorf("list %s: replace at resourceVersion %s: %w", r.opts.Name, rv, err)
	}
	r.publish(rv)
	r.clearErr()
	logger.V(4).Info("listed", "resourceVersion", rv, "items", len(items), "pages", pages)
	return n, nil
}

// withKnown returns ctx carrying the Sink's Lookup, if it has one (the
// informer's FIFO, once it holds something): a relist's LIST or WatchList
// made with it gets, from a codec that can read an item's metadata first
// (wire's protobuf and JSON codecs), the cached object itself for every item
// the cache holds at the same resourceVersion, instead of a decoded copy. So
// a relist does not hold a second copy of the whole cache while it is
// applied, nor decode what did not change (runtime/internal/known). The
// Lookup answers nothing once stop is called: a WatchList's stream goes on
// after its initial events, whose objects are new.
func (r *Reflector[T]) withKnown(ctx context.Context) (_ context.Context, stop func()) {
	s, ok := r.sink.(interface{ Lookup() known.Lookup[T] })
	if !ok {
		return ctx, func() {}
	}
	l := s.Lookup()
	if l == nil {
		return ctx, func() {}
	}
	var stopped atomic.Bool
	return known.With(ctx, known.Lookup[T](func(namespace, name, rv []byte) (T, bool) {
		if stopped.Load() {
			var zero T
			return zero, false
		}
		return l(namespace, name, rv)
	})), func() { stopped.Store(true) }
}

// listPage lists the page opts asks for and returns items with its items
// appended (the first page sizes items for the whole list: see
// listpage.Reserve), its metadata, and whether the source returned a page. A
// source that is a listpage.Appender (the runtime's adapter of a typed
// source) appends them itself, converting as it goes.
func (r *Reflector[T]) listPage(ctx context.Context, opts metav1.ListOptions, items []T) ([]T, listpage.Page, bool, error) {
	if r.appender != nil {
		return r.appender.AppendList(ctx, opts, items)
	}
	res, err := r.lw.List(ctx, opts)
	if res == nil || err != nil {
		return items, listpage.Page{}, res != nil, err
	}
	page := listpage.Page{ResourceVersion: res.ResourceVersion, Continue: res.Continue, RemainingItemCount: res.RemainingItemCount}
	return append(listpage.Reserve(items, len(res.Items), page), res.Items...), page, true, nil
}

// replace hands a sync's complete list to the Sink and then, with
// Options.Relist, the sync's relist.Mark to a Sink that takes one (the
// informer's FIFO): so the informer's handlers learn, in order with the
// events, that a list made with the options of that trigger generation has
// been applied (a shard gains keys only once it has: see shard.Filter); gen
// is the trigger's generation when the sync began.
func (r *Reflector[T]) replace(items []T, rv string, gen uint64) error {
	if err := r.sink.Replace(items, rv); err != nil {
		return err
	}
	if r.opts.Relist == nil {
		return nil
	}
	if l, ok := r.sink.(interface{ Listed(relist.Mark) error }); ok {
		return l.Listed(relist.Mark{Trigger: r.opts.Relist, Gen: gen})
	}
	return nil
}
