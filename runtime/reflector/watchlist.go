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

// progress watches a WatchList's initial stream for stalls: how long it has
// gone without an event or a bookmark (its progress), measured from the last
// one (or the stream's opening), not from its start, so a stream of a million
// objects may take as long as it needs while it keeps moving. One timer
// wakes the wait: after watchListStall without progress, to report the stall
// (once per stall: progress re-arms it), and after Options.WatchListTimeout
// without progress, to give the stream up. A negative WatchListTimeout
// bounds nothing; a bound no longer than watchListStall is not reported
// before it ends the stream.
type progress struct {
	last   time.Time     // the last event or bookmark, or when the stream opened
	bound  time.Duration // Options.WatchListTimeout; negative: none
	warn   bool          // stalls are reported before the bound
	warned bool          // the current stall has been reported
	timer  *time.Timer
}

func newProgress(bound time.Duration) *progress {
	p := &progress{last: time.Now(), bound: bound, warn: bound < 0 || bound > watchListStall}
	p.timer = time.NewTimer(time.Hour)
	p.timer.Stop()
	p.arm(0)
	return p
}

// arm sets the timer for the next deadline of a stream idle for idle: the
// stall report unless it was made, else the bound, if any.
func (p *progress) arm(idle time.Duration) {
	switch {
	case p.warn && !p.warned:
		p.timer.Reset(watchListStall - idle)
	case p.bound > 0:
		p.timer.Reset(p.bound - idle)
	}
}

// moved records an event or a bookmark. It reports whether that ends a stall
// already reported.
func (p *progress) moved() bool {
	p.last = time.Now()
	if !p.warned {
		return false
	}
	p.warned = false
	p.timer.Stop()
	p.arm(0)
	return true
}

// due is called when the timer fires: it reports whether the stream has now
// stalled for watchListStall (report) or for the bound (giveUp), with how
// long it has been idle, and re-arms the timer otherwise.
func (p *progress) due() (report, giveUp bool, idle time.Duration) {
	idle = time.Since(p.last)
	if p.bound > 0 && idle >= p.bound {
		return false, true, idle
	}
	if p.warn && !p.warned && idle >= watchListStall {
		p.warned, report = true, true
	}
	p.arm(idle)
	return report, false, idle
}

func (p *progress) stop() { p.timer.Stop() }

// initialList is the initial list of a WatchList as its events build it:
// the objects by key, an event for a key seen before replacing (or, for a
// DELETED one, removing) the earlier object.
//
// kube-apiserver sends the initial events in key order, each key once (its
// watch cache lists an ordered snapshot), so while every key is above the
// last one kept no key can repeat and the list needs no index: a sync of N
// objects does not hold N keys and a map beside them when its heap is at its
// highest (~50 B an object). The first key out of order builds the index.
type initialList[T cache.Obj] struct {
	items []T
	index map[string]int // key → position in items; nil while the keys rise
}

func (l *initialList[T]) apply(typ watch.EventType, obj T) {
	if l.index == nil {
		if n := len(l.items); n == 0 || cache.CompareKeys(l.items[n-1], obj) < 0 {
			// Above every key kept, so not among them: a DELETED one
			// removes nothing.
			if typ != watch.Deleted {
				l.items = append(l.items, obj)
			}
			return
		}
		l.index = make(map[string]int, len(l.items)+1)
		for i, it := range l.items {
			l.index[store.Key(it)] = i
		}
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
// initial-events-end bookmark, replaces the Sink's content with it (the
// Mark it hands over carries gen: see replace), and returns the still-open
// watch, when it was opened and the list's resourceVersion.
func (r *Reflector[T]) watchList(ctx context.Context, gen uint64) (watch.Interface, time.Time, uint64, error) {
	sendInitial := true
	// Objects the cache holds are looked up only until the initial events
	// end (see withKnown).
	kctx, stopLookups := r.withKnown(ctx)
	defer stopLookups()
	w, err := r.startWatch(kctx, metav1.ListOptions{
		SendInitialEvents:    &sendInitial,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		TimeoutSeconds:       r.watchListTimeout(),
	}, false)
	if err != nil {
		return nil, time.Time{}, 0, fmt.Errorf("watch-list %s: %w", r.opts.Name, err)
	}
	since := time.Now()
	done := func(err error) (watch.Interface, time.Time, uint64, error) {
		stopWatch(w)
		if m := r.opts.Metrics; m != nil {
			m.WatchDone(time.Since(since), err)
		}
		return nil, time.Time{}, 0, err
	}
	var initial initialList[T]
	prog := newProgress(r.opts.WatchListTimeout)
	defer prog.stop()
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return done(ctx.Err())
		case <-prog.timer.C:
			report, giveUp, idle := prog.due()
			if giveUp {
				return done(fmt.Errorf("watch-list %s: %w, and no event or bookmark for %v (%d objects received in %v); falling back to LIST for this sync, WatchList again at the next", r.opts.Name, ErrInitialEventsTimeout, idle.Round(time.Millisecond), len(initial.items), time.Since(since).Round(time.Millisecond)))
			}
			if report {
				then := fmt.Sprintf("falling back to LIST after %v without one", r.opts.WatchListTimeout)
				if r.opts.WatchListTimeout < 0 {
					then = "still waiting (Options.WatchListTimeout is negative)"
				}
				r.report(ctx, fmt.Errorf("watch-list %s: %w yet, and no event or bookmark for %v (%d objects received); %s", r.opts.Name, ErrInitialEventsTimeout, idle.Round(time.Millisecond), len(initial.items), then))
			}
			continue
		case ev, ok = <-w.ResultChan():
		}
		if ok && prog.moved() {
			// The stall reported is over: LastError no longer says so.
			r.clearErr()
			klog.FromContext(ctx).V(2).Info("initial stream moving again", "objects", len(initial.items))
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
			n, ok := parseRV(rv)
			if !ok {
				return done(fmt.Errorf("watch-list %s: %w %s on the initial-events-end bookmark", r.opts.Name, ErrInvalidResourceVersion, quoteRV(rv)))
			}
			if err := r.replace(initial.items, rv, gen); err != nil {
				return done(fmt.Errorf("watch-list %s: replace at resourceVersion %s: %w", r.opts.Name, rv, err))
			}
			r.publish(rv)
			r.clearErr()
			klog.FromContext(ctx).V(4).Info("streamed initial list", "resourceVersion", rv, "items", len(initial.items))
			return w, since, n, nil
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
