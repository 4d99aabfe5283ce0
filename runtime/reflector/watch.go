package reflector

import (
	"context"
	"errors"
	"fmt"
	"reflect"
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

// watchEnd is how a watch ended.
type watchEnd struct {
	// err is why it failed; nil when the server closed it (or ctx ended, or
	// undecodable is set).
	err error
	// lasted says it stayed open at least shortWatch.
	lasted bool
	// undecodable says it was stopped after an event the ListerWatcher could
	// not decode (a MalformedObject), already reported.
	undecodable bool
	// progressed says the resourceVersion to resume from advanced.
	progressed bool
	// requested says Options.Relist fired: the watch was stopped for a
	// relist.
	requested bool
	events    int
}

// startWatch opens a watch with opts, plus what every watch of a Reflector
// asks for (bookmarks, the server-side timeout), and counts the attempt in
// the metrics. A ListerWatcher returning neither a watch nor an error is an
// error.
func (r *Reflector[T]) startWatch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.AllowWatchBookmarks = true
	opts.TimeoutSeconds = r.watchTimeout()
	w, err := r.lw.Watch(ctx, opts)
	if err == nil && w == nil {
		err = errors.New("watcher returned no watch and no error")
	}
	if m := r.opts.Metrics; m != nil {
		m.WatchStarted(err)
	}
	return w, err
}

// watch consumes w, or a new watch from the last resourceVersion when w is
// nil, until it ends or requested is closed, and says how it ended.
func (r *Reflector[T]) watch(ctx context.Context, w watch.Interface, requested <-chan struct{}) (end watchEnd) {
	rv := r.LastSyncResourceVersion()
	start := r.watchStart
	if w == nil {
		start = time.Now()
		var err error
		w, err = r.startWatch(ctx, metav1.ListOptions{ResourceVersion: rv})
		if err != nil {
			end.err = fmt.Errorf("watch %s from resourceVersion %s: %w", r.opts.Name, rv, err)
			return end
		}
		r.clearErr()
	}
	defer stopWatch(w)
	defer func() {
		open := time.Since(start)
		end.lasted = open >= shortWatch
		end.progressed = r.LastSyncResourceVersion() != rv
		if m := r.opts.Metrics; m != nil {
			m.WatchDone(open, end.err)
		}
	}()
	logger := klog.FromContext(ctx)
	logger.V(4).Info("watching", "resourceVersion", rv)
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return end
		case <-requested:
			end.requested = true
			return end
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			logger.V(4).Info("watch closed", "resourceVersion", r.LastSyncResourceVersion(), "events", end.events)
			return end
		}
		end.events++
		if m := r.opts.Metrics; m != nil {
			m.Event(ev.Type)
		}
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			if m, ok := ev.Object.(*MalformedObject); ok && m != nil {
				r.report(ctx, fmt.Errorf("watch %s after resourceVersion %s: %w: %s event: %w", r.opts.Name, r.LastSyncResourceVersion(), ErrMalformedEvent, ev.Type, m.Err))
				end.undecodable = true
				return end
			}
			obj, err := r.object(ev)
			if err != nil {
				r.report(ctx, err)
				continue
			}
			if why := r.checkKey(obj); why != "" {
				r.report(ctx, fmt.Errorf("watch %s: %w: %s event (resourceVersion %s) %s: not stored", r.opts.Name, ErrInvalidObject, ev.Type, quoteRV(obj.GetResourceVersion()), why))
				r.advance(ctx, string(ev.Type)+" event", obj.GetResourceVersion())
				continue
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
			r.advance(ctx, fmt.Sprintf("%s %s", ev.Type, store.Key(obj)), obj.GetResourceVersion())
		case watch.Bookmark:
			m, err := bookmarkMeta(ev.Object)
			if err != nil {
				r.report(ctx, fmt.Errorf("watch %s: %w", r.opts.Name, err))
				continue
			}
			r.advance(ctx, "a bookmark", m.GetResourceVersion())
			if err := r.bookmark(m.GetResourceVersion()); err != nil {
				r.report(ctx, err)
			}
		case watch.Error:
			end.err = fmt.Errorf("watch %s from resourceVersion %s: %w", r.opts.Name, r.LastSyncResourceVersion(), statusError(ev.Object))
			return end
		default:
			r.report(ctx, fmt.Errorf("watch %s: %w: unknown event type %q", r.opts.Name, ErrMalformedEvent, ev.Type))
		}
	}
}
