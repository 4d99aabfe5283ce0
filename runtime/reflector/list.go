package reflector

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// list reads the collection with a consistent LIST (every page, if
// Options.PageSize pages it, at the first page's resourceVersion) and
// replaces the Sink's content with it.
func (r *Reflector[T]) list(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	opts := metav1.ListOptions{Limit: r.opts.PageSize}
	var (
		items []T
		rv    string
		pages int
	)
	// A LIST counts as one request for the Budget, however many pages.
	if err := r.request(ctx); err != nil {
		return fmt.Errorf("list %s: %w", r.opts.Name, err)
	}
	for {
		page, err := r.lw.List(ctx, opts)
		if err != nil && opts.Continue != "" && isExpired(err) {
			// The snapshot behind the continue token was compacted: read
			// everything at once, as client-go's pager does.
			logger.V(2).Info("continue token expired; listing without paging", "pages", pages, "err", err)
			opts = metav1.ListOptions{}
			items, rv = items[:0], ""
			page, err = r.lw.List(ctx, opts)
		}
		if err == nil && page == nil {
			err = errors.New("lister returned no page and no error")
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", r.opts.Name, err)
		}
		pages++
		if rv == "" {
			rv = page.ResourceVersion
			if items == nil && page.Continue != "" && page.RemainingItemCount != nil {
				items = make([]T, 0, int64(len(page.Items))+*page.RemainingItemCount)
			}
		}
		items = append(items, page.Items...)
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	if !validRV(rv) {
		return fmt.Errorf("list %s: %w %s", r.opts.Name, ErrInvalidResourceVersion, quoteRV(rv))
	}
	if err := r.checkItems("list", items, rv); err != nil {
		return r.counted(err)
	}
	if err := r.sink.Replace(items, rv); err != nil {
		return fmt.Errorf("list %s: replace at resourceVersion %s: %w", r.opts.Name, rv, err)
	}
	r.setLastRV(rv)
	r.clearErr()
	logger.V(4).Info("listed", "resourceVersion", rv, "items", len(items), "pages", pages)
	return nil
}
