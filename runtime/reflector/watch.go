package reflector

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// object returns ev's object as T, or an ErrMalformedEvent error.
func (r *Reflector[T]) object(ev watch.Event) (T, error) {
	obj, ok := ev.Object.(T)
	if ok && !isNil(obj) && (r.opts.ObjectType == nil || reflect.TypeOf(obj) == r.opts.ObjectType) {
		return obj, nil
	}
	var zero T
	if m, ok := ev.Object.(*MalformedObject); ok && m != nil {
		return zero, fmt.Errorf("watch %s: %w: %s event: %w", r.opts.Name, ErrMalformedEvent, ev.Type, m.Err)
	}
	who := ""
	if m, err := meta.Accessor(ev.Object); err == nil && !isNil(ev.Object) {
		who = fmt.Sprintf(" %s (resourceVersion %s)", store.Key(m), m.GetResourceVersion())
	}
	var want any = reflect.TypeFor[T]()
	if r.opts.ObjectType != nil {
		want = r.opts.ObjectType
	}
	return zero, fmt.Errorf("watch %s: %w: %s event%s carries %T, want %v", r.opts.Name, ErrMalformedEvent, ev.Type, who, ev.Object, want)
}

// statusError turns the object of an ERROR event into an error. Anything but
// a Status is malformed; unlike apierrors.FromObject, the message names only
// its type, so a misrouted object (a Secret) never reaches the logs.
func statusError(obj runtime.Object) error {
	switch obj.(type) {
	case *metav1.Status, runtime.Unstructured:
		if isNil(obj) {
			break
		}
		if err := apierrors.FromObject(obj); !apierrors.IsUnexpectedObjectError(err) {
			return err
		}
	}
	return fmt.Errorf("%w: ERROR event carries %T, want *v1.Status", ErrMalformedEvent, obj)
}

// bookmarkMeta returns the metadata of a BOOKMARK event's object, or an
// ErrMalformedEvent error when it has none (including a typed nil pointer,
// which meta.Accessor accepts).
func bookmarkMeta(obj any) (metav1.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil || isNil(obj) {
		return nil, fmt.Errorf("%w: bookmark without metadata (%T)", ErrMalformedEvent, obj)
	}
	return m, nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// stopWatch stops w and drains its ResultChan until the implementation
// closes it (ListerWatcher's contract), so the goroutine behind a REST watch
// (client-go's StreamWatcher) has exited before the Reflector goes on: Run
// returns only after everything it started is gone.
func stopWatch(w watch.Interface) {
	w.Stop()
	for range w.ResultChan() {
	}
}

// startWatch opens a watch with opts, plus what every watch of a Reflector
// asks for (bookmarks, the server-side timeout unless opts has one), and
// counts the attempt in the metrics. A ListerWatcher returning neither a
// watch nor an error is an error. free skips the Budget (the first watch
// after the initial LIST).
func (r *Reflector[T]) startWatch(ctx context.Context, opts metav1.ListOptions, free bool) (watch.Interface, error) {
	opts.AllowWatchBookmarks = true
	if opts.TimeoutSeconds == nil {
		opts.TimeoutSeconds = r.watchTimeout()
	}
	if free {
		r.pacer.turn = false
	} else if err := r.pacer.request(ctx); err != nil {
		return nil, err
	}
	w, err := r.lw.Watch(ctx, opts)
	if err == nil && w == nil {
		err = errors.New("watcher returned no watch and no error")
	}
	if m := r.opts.Metrics; m != nil {
		m.WatchStarted(err)
	}
	return w, err
}

// openWatch opens a watch from the last resourceVersion (free: without a
// Budget turn, the first after the initial LIST).
func (r *Reflector[T]) openWatch(ctx context.Context, free bool) (watch.Interface, error) {
	rv := r.LastSyncResourceVersion()
	w, err := r.startWatch(ctx, metav1.ListOptions{ResourceVersion: rv}, free)
	if err != nil {
		return nil, fmt.Errorf("watch %s from resourceVersion %s: %w", r.opts.Name, rv, err)
	}
	return w, nil
}

// read applies the events of s's watch until it ends, ctx ends or
// Options.Relist fires, stops it, and says how it ended and the
// resourceVersion reached (a watching step).
func (r *Reflector[T]) read(ctx context.Context, s state) (res result) {
	w := s.w
	rv := r.LastSyncResourceVersion()
	cur := s.rv // the resourceVersion to resume from, as events move it
	defer stopWatch(w)
	defer func() {
		res.rv = cur
		res.open = time.Since(s.since)
		res.progressed = r.LastSyncResourceVersion() != rv
		if m := r.opts.Metrics; m != nil {
			m.WatchDone(res.open, res.err)
		}
	}()
	if s.relist.fired() {
		// The options changed while listing: the watch (a WatchList's)
		// carries the old selection.
		return result{out: outRequested}
	}
	logger := klog.FromContext(ctx)
	logger.V(4).Info("watching", "resourceVersion", rv)
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return result{out: outDone}
		case <-s.relist.ch:
			return result{out: outRequested}
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			logger.V(4).Info("watch closed", "resourceVersion", r.LastSyncResourceVersion(), "events", res.events)
			return result{out: outClosed, events: res.events}
		}
		res.events++
		if m := r.opts.Metrics; m != nil {
			m.Event(ev.Type)
		}
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			obj, n, err := r.applicable(ev, cur)
			if err != nil {
				return result{out: outRejected, err: r.reject(ctx, err), events: res.events}
			}
			switch ev.Type {
			case watch.Added:
				err = r.sink.Add(obj)
			case watch.Modified:
				err = r.sink.Update(obj)
			default:
				err = r.sink.Delete(obj)
			}
			if err != nil {
				r.report(ctx, fmt.Errorf("watch %s: %s %s (resourceVersion %s): %w", r.opts.Name, ev.Type, store.Key(obj), obj.GetResourceVersion(), err))
			}
			if n != 0 {
				cur = n
				r.publish(obj.GetResourceVersion())
			} else if m, ok := parseRV(obj.GetResourceVersion()); ok {
				// A source without resourceVersions (n is 0): resume from
				// a valid one when it has it.
				cur = m
				r.publish(obj.GetResourceVersion())
			}
		case watch.Bookmark:
			rv, n, err := r.bookmarkRV(ev.Object, cur)
			if err != nil {
				return result{out: outRejected, err: r.reject(ctx, err), events: res.events}
			}
			cur = n
			r.publish(rv)
			if err := r.bookmark(rv); err != nil {
				r.report(ctx, err)
			}
		case watch.Error:
			err := fmt.Errorf("watch %s from resourceVersion %s: %w", r.opts.Name, r.LastSyncResourceVersion(), statusError(ev.Object))
			return result{out: watchFailure(err), err: err, events: res.events}
		default:
			err := fmt.Errorf("watch %s after resourceVersion %s: %w: unknown event type %q", r.opts.Name, r.LastSyncResourceVersion(), ErrMalformedEvent, ev.Type)
			return result{out: outRejected, err: r.reject(ctx, err), events: res.events}
		}
	}
}

// applicable returns the object of ev, an ADDED, MODIFIED or DELETED event
// of a watch, if the Reflector may apply it, or why not: it is undecodable
// or not T (ErrMalformedEvent), has no valid key (ErrInvalidObject), or its
// resourceVersion is not a number (ErrInvalidResourceVersion) or not newer
// than the one the Reflector resumes from (ErrStaleResourceVersion). The
// last two are not checked for a source without resourceVersions (see
// objectRVs). cur is the resourceVersion the Reflector resumes from.
func (r *Reflector[T]) applicable(ev watch.Event, cur uint64) (T, uint64, error) {
	var zero T
	if m, ok := ev.Object.(*MalformedObject); ok && m != nil {
		return zero, 0, fmt.Errorf("watch %s after resourceVersion %s: %w: %s event: %w", r.opts.Name, r.LastSyncResourceVersion(), ErrMalformedEvent, ev.Type, m.Err)
	}
	obj, err := r.object(ev)
	if err != nil {
		return zero, 0, err
	}
	rv := obj.GetResourceVersion()
	if why := r.checkKey(obj); why != "" {
		return zero, 0, fmt.Errorf("watch %s after resourceVersion %s: %w: %s event (resourceVersion %s) %s", r.opts.Name, r.LastSyncResourceVersion(), ErrInvalidObject, ev.Type, quoteRV(rv), why)
	}
	if !r.objectRVs {
		return obj, 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return zero, 0, fmt.Errorf("watch %s after resourceVersion %s: %w %s on %s %s", r.opts.Name, r.LastSyncResourceVersion(), ErrInvalidResourceVersion, quoteRV(rv), ev.Type, store.Key(obj))
	}
	if n <= cur {
		return zero, 0, fmt.Errorf("watch %s after resourceVersion %s: %w: %s %s at resourceVersion %s", r.opts.Name, r.LastSyncResourceVersion(), ErrStaleResourceVersion, ev.Type, store.Key(obj), rv)
	}
	return obj, n, nil
}

// bookmarkRV returns the resourceVersion of a BOOKMARK event's object, or
// why the Reflector cannot move to it: the object has no metadata
// (ErrMalformedEvent), its resourceVersion is not a number
// (ErrInvalidResourceVersion) or older than the one the Reflector resumes
// from, cur (ErrStaleResourceVersion; the same one is fine); else the
// resourceVersion and its number.
func (r *Reflector[T]) bookmarkRV(obj runtime.Object, cur uint64) (string, uint64, error) {
	m, err := bookmarkMeta(obj)
	if err != nil {
		return "", 0, fmt.Errorf("watch %s after resourceVersion %s: %w", r.opts.Name, r.LastSyncResourceVersion(), err)
	}
	rv := m.GetResourceVersion()
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("watch %s after resourceVersion %s: %w %s on a bookmark", r.opts.Name, r.LastSyncResourceVersion(), ErrInvalidResourceVersion, quoteRV(rv))
	}
	if n < cur {
		return "", 0, fmt.Errorf("watch %s after resourceVersion %s: %w: bookmark at resourceVersion %s", r.opts.Name, r.LastSyncResourceVersion(), ErrStaleResourceVersion, rv)
	}
	return rv, n, nil
}

// reject reports err, the reason a watch event was refused, counts it
// (Metrics.Rejected) and returns it.
func (r *Reflector[T]) reject(ctx context.Context, err error) error {
	r.report(ctx, r.counted(err))
	return err
}

// counted counts err, the reason an event, a LIST or a WatchList's initial
// stream was refused (Metrics.Rejected), and returns it.
func (r *Reflector[T]) counted(err error) error {
	if m := r.opts.Metrics; m != nil {
		m.Rejected(err)
	}
	return err
}
