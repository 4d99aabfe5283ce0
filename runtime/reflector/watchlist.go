package reflector

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// watchListTimers returns the channels that end the wait for the initial
// list's bookmark: stall fires once after watchListStall (the wait is then
// reported, not ended), bound once after Options.WatchListTimeout (the
// WatchList is given up). A nil channel never fires (no bound, or a bound
// shorter than the stall report). stop releases the timers.
func (r *Reflector[T]) watchListTimers() (stall, bound <-chan time.Time, stop func()) {
	var timers []*time.Timer
	if d := r.opts.WatchListTimeout; d > 0 {
		t := time.NewTimer(d)
		timers = append(timers, t)
		bound = t.C
	}
	if d := r.opts.WatchListTimeout; d < 0 || d > watchListStall {
		t := time.NewTimer(watchListStall)
		timers = append(timers, t)
		stall = t.C
	}
	return stall, bound, func() {
		for _, t := range timers {
			t.Stop()
		}
	}
}

// initialList is the initial list of a WatchList as its events build it:
// the objects by key, an event for a key seen before replacing (or, for a
// DELETED one, removing) the earlier object.
type initialList[T cache.Obj] struct {
	items []T
	index map[string]int // key → position in items
}

func (l *initialList[T]) apply(typ watch.EventType, obj T) {
	if l.index == nil {
		l.index = map[string]int{}
	}
	key := store.Key(obj)
	i, seen := l.index[key]
	switch {
	case typ == watch.Deleted && seen:
		last := len(l.items) - 1
		l.items[i] = l.items[last]
		l.index[store.Key(l.items[i])] = i
		l.items = l.items[:last]
		delete(l.index, key)
	case typ == watch.Deleted:
	case seen:
		l.items[i] = obj
	default:
		l.index[key] = len(l.items)
		l.items = append(l.items, obj)
	}
}

// watchList streams the initial list (sendInitialEvents=true) up to the
// initial-events-end bookmark, replaces the Sink's content with it, and
// returns the still-open watch and when it was opened.
func (r *Reflector[T]) watchList(ctx context.Context) (watch.Interface, time.Time, error) {
	sendInitial := true
	w, err := r.startWatch(ctx, metav1.ListOptions{
		SendInitialEvents:    &sendInitial,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
	}, false)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("watch-list %s: %w", r.opts.Name, err)
	}
	since := time.Now()
	done := func(err error) (watch.Interface, time.Time, error) {
		stopWatch(w)
		if m := r.opts.Metrics; m != nil {
			m.WatchDone(time.Since(since), err)
		}
		return nil, time.Time{}, err
	}
	var initial initialList[T]
	stall, bound, stopTimers := r.watchListTimers()
	defer stopTimers()
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
			r.report(ctx, fmt.Errorf("watch-list %s: %w after %v (%d objects received); %s", r.opts.Name, ErrInitialEventsTimeout, watchListStall, len(initial.items), then))
			continue
		case <-bound:
			return done(fmt.Errorf("watch-list %s: %w within %v (%d objects received); falling back to LIST+WATCH from now on", r.opts.Name, ErrInitialEventsTimeout, r.opts.WatchListTimeout, len(initial.items)))
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return done(fmt.Errorf("watch-list %s: watch closed before the initial-events-end bookmark (%d objects received)", r.opts.Name, len(initial.items)))
		}
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			if m := r.opts.Metrics; m != nil {
				m.Event(ev.Type)
			}
			obj, err := r.initialObject(ev)
			if err != nil {
				// An object of the initial list is unknown: this stream
				// cannot give a complete list.
				return done(r.counted(err))
			}
			initial.apply(ev.Type, obj)
		case watch.Bookmark:
			m, err := bookmarkMeta(ev.Object)
			if err != nil {
				return done(r.counted(fmt.Errorf("watch-list %s: %w", r.opts.Name, err)))
			}
			if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
				continue
			}
			rv := m.GetResourceVersion()
			if !validRV(rv) {
				return done(fmt.Errorf("watch-list %s: %w %s on the initial-events-end bookmark", r.opts.Name, ErrInvalidResourceVersion, quoteRV(rv)))
			}
			if err := r.replace(initial.items, rv); err != nil {
				return done(fmt.Errorf("watch-list %s: replace at resourceVersion %s: %w", r.opts.Name, rv, err))
			}
			r.setLastRV(rv)
			r.clearErr()
			klog.FromContext(ctx).V(4).Info("streamed initial list", "resourceVersion", rv, "items", len(initial.items))
			return w, since, nil
		case watch.Error:
			return done(fmt.Errorf("watch-list %s: %w", r.opts.Name, statusError(ev.Object)))
		default:
			return done(r.counted(fmt.Errorf("watch-list %s: %w: unknown event type %q", r.opts.Name, ErrMalformedEvent, ev.Type)))
		}
	}
}

// initialObject returns the object of ev, an event of a WatchList's initial
// stream, or why it cannot be part of the initial list: it is undecodable or
// not T (ErrMalformedEvent), has no valid key (ErrInvalidObject) or its
// resourceVersion is not a number (ErrInvalidResourceVersion; not checked
// for a source without resourceVersions). The order of the initial events'
// resourceVersions is the server's storage order, not checked.
func (r *Reflector[T]) initialObject(ev watch.Event) (T, error) {
	var zero T
	if m, ok := ev.Object.(*MalformedObject); ok && m != nil {
		return zero, fmt.Errorf("watch-list %s: %w: %s event: %w", r.opts.Name, ErrMalformedEvent, ev.Type, m.Err)
	}
	obj, err := r.object(ev)
	if err != nil {
		return zero, err
	}
	rv := obj.GetResourceVersion()
	if why := r.checkKey(obj); why != "" {
		return zero, fmt.Errorf("watch-list %s: %w: %s event (resourceVersion %s) %s", r.opts.Name, ErrInvalidObject, ev.Type, quoteRV(rv), why)
	}
	if r.objectRVs && !validObjectRV(rv) {
		return zero, fmt.Errorf("watch-list %s: %w %s on %s %s", r.opts.Name, ErrInvalidResourceVersion, quoteRV(rv), ev.Type, store.Key(obj))
	}
	return obj, nil
}
