package reflector

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/store"
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
	items = r.storable(ctx, "list", items, rv)
	if err := r.sink.Replace(items, rv); err != nil {
		return fmt.Errorf("list %s: replace at resourceVersion %s: %w", r.opts.Name, rv, err)
	}
	r.setLastRV(rv)
	r.clearErr()
	logger.V(4).Info("listed", "resourceVersion", rv, "items", len(items), "pages", pages)
	return nil
}

// watchList streams the initial list (sendInitialEvents=true) up to the
// initial-events-end bookmark, replaces the Sink's content with it, and
// returns the still-open watch.
func (r *Reflector[T]) watchList(ctx context.Context) (watch.Interface, error) {
	sendInitial := true
	w, err := r.startWatch(ctx, metav1.ListOptions{
		SendInitialEvents:    &sendInitial,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
	})
	if err != nil {
		return nil, fmt.Errorf("watch-list %s: %w", r.opts.Name, err)
	}
	r.watchStart = time.Now()
	done := func(err error) (watch.Interface, error) {
		stopWatch(w)
		if m := r.opts.Metrics; m != nil {
			m.WatchDone(time.Since(r.watchStart), err)
		}
		return nil, err
	}
	var (
		items []T
		index = map[string]int{}
		// stall and bound fire once each; nil channels (no bound) never.
		stall, bound <-chan time.Time
	)
	if d := r.opts.WatchListTimeout; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		bound = t.C
	}
	if d := r.opts.WatchListTimeout; d < 0 || d > watchListStall {
		s := time.NewTimer(watchListStall)
		defer s.Stop()
		stall = s.C
	}
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return done(ctx.Err())
		case <-stall:
			then := fmt.Sprintf("falling back to LIST at %v", r.opts.WatchListTimeout)
			if bound == nil {
				then = "still waiting (Options.WatchListTimeout is negative)"
			}
			r.report(ctx, fmt.Errorf("watch-list %s: %w after %v (%d objects received); %s", r.opts.Name, ErrInitialEventsTimeout, watchListStall, len(items), then))
			continue
		case <-bound:
			return done(fmt.Errorf("watch-list %s: %w within %v (%d objects received); falling back to LIST+WATCH from now on", r.opts.Name, ErrInitialEventsTimeout, r.opts.WatchListTimeout, len(items)))
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return done(fmt.Errorf("watch-list %s: watch closed before the initial-events-end bookmark (%d objects received)", r.opts.Name, len(items)))
		}
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			if m, ok := ev.Object.(*MalformedObject); ok && m != nil {
				// An object of the initial list is unknown: this stream
				// cannot give a complete list.
				return done(fmt.Errorf("watch-list %s: %w: %s event: %w", r.opts.Name, ErrMalformedEvent, ev.Type, m.Err))
			}
			if m := r.opts.Metrics; m != nil {
				m.Event(ev.Type)
			}
			obj, err := r.object(ev)
			if err != nil {
				r.report(ctx, err)
				continue
			}
			if why := r.checkKey(obj); why != "" {
				r.report(ctx, fmt.Errorf("watch-list %s: %w: %s event (resourceVersion %s) %s: not stored", r.opts.Name, ErrInvalidObject, ev.Type, quoteRV(obj.GetResourceVersion()), why))
				continue
			}
			key := store.Key(obj)
			i, seen := index[key]
			switch {
			case ev.Type == watch.Deleted && seen:
				last := len(items) - 1
				items[i] = items[last]
				index[store.Key(items[i])] = i
				items = items[:last]
				delete(index, key)
			case ev.Type == watch.Deleted:
			case seen:
				items[i] = obj
			default:
				index[key] = len(items)
				items = append(items, obj)
			}
		case watch.Bookmark:
			m, err := bookmarkMeta(ev.Object)
			if err != nil {
				r.report(ctx, fmt.Errorf("watch-list %s: %w", r.opts.Name, err))
				continue
			}
			if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
				continue
			}
			rv := m.GetResourceVersion()
			if !validRV(rv) {
				return done(fmt.Errorf("watch-list %s: %w %s on the initial-events-end bookmark", r.opts.Name, ErrInvalidResourceVersion, quoteRV(rv)))
			}
			if err := r.sink.Replace(items, rv); err != nil {
				return done(fmt.Errorf("watch-list %s: replace at resourceVersion %s: %w", r.opts.Name, rv, err))
			}
			r.setLastRV(rv)
			r.clearErr()
			klog.FromContext(ctx).V(4).Info("streamed initial list", "resourceVersion", rv, "items", len(items))
			return w, nil
		case watch.Error:
			return done(fmt.Errorf("watch-list %s: %w", r.opts.Name, statusError(ev.Object)))
		default:
			r.report(ctx, fmt.Errorf("watch-list %s: %w: unknown event type %q", r.opts.Name, ErrMalformedEvent, ev.Type))
		}
	}
}
