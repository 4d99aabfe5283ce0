package reflector

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// ListResult is one page of a LIST.
type ListResult[T any] struct {
	Items           []T
	ResourceVersion string
	// Continue is the token for the next page; empty on the last page.
	Continue string
	// RemainingItemCount, when the server knows it, is the number of items
	// after this page; the Reflector uses it to size its buffer.
	RemainingItemCount *int64
}

// ListerWatcher is the source a Reflector reads. Implementations: listwatch (a
// REST client) and runtimetest (a deterministic fake). Watch events carry T as
// runtime.Object; anything else is a malformed event that the Reflector reports
// and survives. Both methods must return promptly once ctx ends, and a watch
// must close its ResultChan after Stop.
type ListerWatcher[T any] interface {
	List(ctx context.Context, opts metav1.ListOptions) (*ListResult[T], error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Sink receives what the Reflector sees. *fifo.FIFO[T] satisfies it. The
// Reflector calls Add, Update, Delete and Replace from one goroutine, and
// Resync from another (only when Options.ResyncPeriod is positive), so an
// implementation must be safe for that much concurrency. None of them should
// block for long: the watch is not read while they run.
type Sink[T any] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	// Replace hands over a complete list of the resource at resourceVersion
	// (a LIST, or a WatchList's initial events).
	Replace(objs []T, resourceVersion string) error
	Resync() error
}

// Options configures New. The zero value is usable.
type Options struct {
	// Name appears in logs and errors, e.g. "foos.samplecontroller.example.com".
	Name string
	// PageSize, when positive, pages every LIST (limit=PageSize, each page
	// at the first page's resourceVersion); 0 lists in one request. Both
	// are consistent reads (resourceVersion ""), which API servers with
	// ConsistentListFromCache (Kubernetes 1.31+) answer from the watch
	// cache; set a PageSize for an older server, which reads etcd for them.
	PageSize int64
	// ResyncPeriod, when positive, calls Sink.Resync that often.
	ResyncPeriod time.Duration
	// WatchList selects streaming initial lists: nil tries it and falls back to
	// list+watch when the server refuses; false never tries it.
	WatchList *bool
	// WatchErrorHandler is called with every list/watch error (after logging),
	// from the Run goroutine: it must not block for long.
	WatchErrorHandler func(ctx context.Context, err error)
	// InitialBackoff and MaxBackoff bound the wait after a failed list or
	// watch; 0 means 800ms and 30s. The n-th failure in a row waits a random
	// duration in [b/2, b] with b = min(InitialBackoff·2ⁿ⁻¹, MaxBackoff); two
	// minutes without a failure start again from InitialBackoff.
	InitialBackoff, MaxBackoff time.Duration
}

// ErrMalformedEvent is wrapped by the error reported for a watch event the
// Reflector cannot use (an object that is not T, a BOOKMARK without metadata,
// an unknown event type). The event is skipped; the watch goes on.
var ErrMalformedEvent = errors.New("malformed watch event")

// MalformedObject is the object of a watch event that a ListerWatcher read
// but could not decode into T (see wire.DecodeError). The Reflector reports
// Err, wrapped in ErrMalformedEvent, skips the event and goes on reading the
// watch. A ListerWatcher whose stream lost its framing sends one such event
// and then closes the watch; the Reflector then watches again from the last
// resourceVersion it saw.
type MalformedObject struct {
	Err error
}

// GetObjectKind implements runtime.Object; a MalformedObject has no kind.
func (m *MalformedObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object.
func (m *MalformedObject) DeepCopyObject() runtime.Object { c := *m; return &c }

// errShortWatch ends a watch that closed within shortWatch without a single
// event: the server is likely unhealthy, so the Reflector backs off before
// watching again instead of hammering it.
var errShortWatch = errors.New("watch closed immediately without events")

const (
	// Watch timeouts are random in [minWatchTimeout, 2·minWatchTimeout), as
	// client-go's, so the watches of many clients do not expire together.
	minWatchTimeout = 5 * time.Minute
	shortWatch      = time.Second
)

// Reflector keeps a Sink in step with the server: it lists (or streams the
// initial list with WatchList), hands the result to Sink.Replace, then watches
// from that resourceVersion and forwards every change, until its context ends.
//
// Behaviour, in client-go's terms:
//   - Lists use resourceVersion "" (a consistent read, which current API
//     servers answer from the watch cache), so a relist never goes back in
//     time; they are one request without a limit unless Options.PageSize
//     pages them. Pages are read at the first page's resourceVersion; if a
//     continue token expires (410), it falls back to one full LIST.
//   - The watch asks for bookmarks (they advance LastSyncResourceVersion) and a
//     random timeout in [5m, 10m). When the server closes it, the Reflector
//     watches again from the last resourceVersion it saw, without relisting.
//   - 410 Expired/Gone on the watch (the resourceVersion was compacted) makes
//     it relist.
//   - Every error goes to Options.WatchErrorHandler and LastError and is
//     followed by a wait: the Retry-After of a 429 (or any error suggesting a
//     client delay), else an exponential backoff with jitter (see
//     Options.InitialBackoff). Errors never stop the Reflector: a 403 or 404
//     on LIST is retried forever, and the informer surfaces LastError.
//   - WatchList (Options.WatchList nil or true): the first sync is a watch with
//     sendInitialEvents=true; its ADDED events up to the bookmark annotated
//     k8s.io/initial-events-end become one Sink.Replace, and the same watch
//     goes on. If the server refuses it (400/422, or such an ERROR event before
//     the end marker) the Reflector uses LIST from then on; after any other
//     failure it LISTs this once and tries WatchList again on the next relist.
//
// A Reflector is run once. LastSyncResourceVersion and LastError are safe for
// concurrent use.
type Reflector[T store.Object[T]] struct {
	lw   ListerWatcher[T]
	sink Sink[T]
	opts Options

	running atomic.Bool

	mu      sync.Mutex
	lastRV  string
	lastErr error

	// Owned by the Run goroutine.
	backoff     *backoff
	noWatchList bool
}

// New returns a Reflector that reads lw into sink. It does nothing until Run.
func New[T store.Object[T]](lw ListerWatcher[T], sink Sink[T], opts Options) *Reflector[T] {
	if opts.PageSize < 0 {
		opts.PageSize = 0
	}
	if opts.Name == "" {
		var zero T
		opts.Name = fmt.Sprintf("%T", zero)
	}
	return &Reflector[T]{
		lw:          lw,
		sink:        sink,
		opts:        opts,
		backoff:     newBackoff(opts.InitialBackoff, opts.MaxBackoff),
		noWatchList: opts.WatchList != nil && !*opts.WatchList,
	}
}

// Run lists and watches until ctx ends, then returns nil once every goroutine
// it started (the resync ticker) has exited and the open watch is stopped.
// Errors are retried, never returned; see Reflector. A Reflector runs once: a
// second call returns an error at once.
func (r *Reflector[T]) Run(ctx context.Context) error {
	if !r.running.CompareAndSwap(false, true) {
		return fmt.Errorf("reflector %s: Run called twice", r.opts.Name)
	}
	logger := klog.FromContext(ctx).WithValues("reflector", r.opts.Name)
	ctx = klog.NewContext(ctx, logger)

	var wg sync.WaitGroup
	defer wg.Wait()
	if r.opts.ResyncPeriod > 0 {
		wg.Go(func() { r.resyncLoop(ctx) })
	}
	r.loop(ctx)
	return nil
}

// LastSyncResourceVersion returns the resourceVersion of the last list,
// event or bookmark seen, or "" before the first list. Safe for concurrent use.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRV
}

// LastError returns the last list/watch error, or nil once a later list or
// watch has succeeded. Safe for concurrent use.
func (r *Reflector[T]) LastError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastErr
}

func (r *Reflector[T]) setLastRV(rv string) {
	if rv == "" {
		return
	}
	r.mu.Lock()
	r.lastRV = rv
	r.mu.Unlock()
}

func (r *Reflector[T]) clearErr() {
	r.mu.Lock()
	r.lastErr = nil
	r.mu.Unlock()
}

// report records err for LastError, logs it and calls the WatchErrorHandler.
func (r *Reflector[T]) report(ctx context.Context, err error) {
	r.mu.Lock()
	r.lastErr = err
	r.mu.Unlock()
	logger := klog.FromContext(ctx)
	if isExpired(err) {
		// Expected after compaction or a long disconnection.
		logger.V(4).Info("resourceVersion expired", "err", err)
	} else {
		logger.Error(err, "list/watch failed")
	}
	if h := r.opts.WatchErrorHandler; h != nil {
		h(ctx, err)
	}
}

// wait sleeps after err: the server's suggested delay (429 Retry-After), or
// the next backoff step. It returns false if ctx ended first.
func (r *Reflector[T]) wait(ctx context.Context, err error) bool {
	var d time.Duration
	if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
		d = time.Duration(s) * time.Second
	} else {
		d = r.backoff.next(time.Now())
	}
	klog.FromContext(ctx).V(4).Info("retrying after delay", "delay", d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// loop is the Run state machine: sync (list or WatchList), then watch, until
// ctx ends.
func (r *Reflector[T]) loop(ctx context.Context) {
	logger := klog.FromContext(ctx)
	needSync := true
	var w watch.Interface // a WatchList watch to go on with, or nil
	for ctx.Err() == nil {
		if needSync {
			var err error
			w, err = r.sync(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				r.report(ctx, err)
				r.wait(ctx, err)
				continue
			}
			needSync = false
			logger.V(2).Info("cache populated", "resourceVersion", r.LastSyncResourceVersion())
		}
		healthy, err := r.watch(ctx, w)
		w = nil
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			// The server closed the watch (timeout, restart): resume from the
			// last resourceVersion.
		case errors.Is(err, errShortWatch):
			logger.V(2).Info("watch closed at once; backing off")
			r.wait(ctx, err)
		case isExpired(err):
			r.report(ctx, err)
			needSync = true
			if !healthy {
				// Relisting right away could loop hot against a server that
				// expires every watch; only a watch that worked earns that.
				r.wait(ctx, err)
			}
		default:
			r.report(ctx, err)
			r.wait(ctx, err)
		}
	}
}

// sync replaces the Sink's content with the server's: by WatchList when
// enabled (returning the watch to go on with), else by a paged LIST.
func (r *Reflector[T]) sync(ctx context.Context) (watch.Interface, error) {
	if !r.noWatchList {
		w, err := r.watchList(ctx)
		if err == nil || ctx.Err() != nil {
			return w, err
		}
		logger := klog.FromContext(ctx)
		if isRefusal(err) {
			r.noWatchList = true
			logger.V(2).Info("server refused WatchList; using LIST from now on", "err", err)
		} else {
			// A real failure (not a missing feature): report it, and make
			// progress with a LIST rather than wait for WatchList to recover.
			r.report(ctx, err)
			logger.V(2).Info("WatchList failed; falling back to LIST this time")
		}
	}
	return nil, r.list(ctx)
}

// isRefusal reports whether err says the server does not support WatchList
// (as opposed to a transient failure).
func isRefusal(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsMethodNotSupported(err) || apierrors.IsNotAcceptable(err)
}

func isExpired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

func (r *Reflector[T]) watchTimeout() *int64 {
	s := int64(minWatchTimeout.Seconds() * (1 + rand.Float64()))
	return &s
}

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
	w, err := r.lw.Watch(ctx, metav1.ListOptions{
		SendInitialEvents:    &sendInitial,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       r.watchTimeout(),
	})
	if err == nil && w == nil {
		err = errors.New("watcher returned no watch and no error")
	}
	if err != nil {
		return nil, fmt.Errorf("watch-list %s: %w", r.opts.Name, err)
	}
	var (
		items []T
		index = map[string]int{}
	)
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			stopWatch(w)
			return nil, ctx.Err()
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			stopWatch(w)
			return nil, fmt.Errorf("watch-list %s: watch closed before the initial-events-end bookmark (%d objects received)", r.opts.Name, len(items))
		}
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			obj, err := r.object(ev)
			if err != nil {
				r.report(ctx, err)
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
			if err := r.sink.Replace(items, rv); err != nil {
				stopWatch(w)
				return nil, fmt.Errorf("watch-list %s: replace at resourceVersion %s: %w", r.opts.Name, rv, err)
			}
			r.setLastRV(rv)
			r.clearErr()
			klog.FromContext(ctx).V(4).Info("streamed initial list", "resourceVersion", rv, "items", len(items))
			return w, nil
		case watch.Error:
			stopWatch(w)
			return nil, fmt.Errorf("watch-list %s: %w", r.opts.Name, statusError(ev.Object))
		default:
			r.report(ctx, fmt.Errorf("watch-list %s: %w: unknown event type %q", r.opts.Name, ErrMalformedEvent, ev.Type))
		}
	}
}

// object returns ev's object as T, or an ErrMalformedEvent error.
func (r *Reflector[T]) object(ev watch.Event) (T, error) {
	obj, ok := ev.Object.(T)
	if ok && !isNil(obj) {
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
	return zero, fmt.Errorf("watch %s: %w: %s event%s carries %T, want %T", r.opts.Name, ErrMalformedEvent, ev.Type, who, ev.Object, zero)
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

// watch consumes w, or a new watch from the last resourceVersion when w is
// nil, until it ends. It returns nil when the server closed the watch
// normally, errShortWatch when it closed at once without events, and the
// error otherwise; healthy says whether the watch delivered events or
// lasted a while.
// stopWatch stops w and drains its ResultChan until the implementation
// closes it (ListerWatcher's contract), so the goroutine behind a REST watch
// (client-go's StreamWatcher) has exited before the Reflector goes on: Run
// returns only after everything it started is gone.
func stopWatch(w watch.Interface) {
	w.Stop()
	for range w.ResultChan() {
	}
}

func (r *Reflector[T]) watch(ctx context.Context, w watch.Interface) (healthy bool, err error) {
	rv := r.LastSyncResourceVersion()
	if w == nil {
		w, err = r.lw.Watch(ctx, metav1.ListOptions{
			ResourceVersion:     rv,
			AllowWatchBookmarks: true,
			TimeoutSeconds:      r.watchTimeout(),
		})
		if err == nil && w == nil {
			err = errors.New("watcher returned no watch and no error")
		}
		if err != nil {
			return false, fmt.Errorf("watch %s from resourceVersion %s: %w", r.opts.Name, rv, err)
		}
		r.clearErr()
	}
	defer stopWatch(w)
	logger := klog.FromContext(ctx)
	logger.V(4).Info("watching", "resourceVersion", rv)
	start := time.Now()
	events := 0
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return true, nil
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			if events == 0 && time.Since(start) < shortWatch {
				return false, errShortWatch
			}
			logger.V(4).Info("watch closed", "resourceVersion", r.LastSyncResourceVersion(), "events", events)
			return true, nil
		}
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			events++
			obj, err := r.object(ev)
			if err != nil {
				r.report(ctx, err)
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
			r.setLastRV(obj.GetResourceVersion())
		case watch.Bookmark:
			events++
			m, err := bookmarkMeta(ev.Object)
			if err != nil {
				r.report(ctx, fmt.Errorf("watch %s: %w", r.opts.Name, err))
				continue
			}
			r.setLastRV(m.GetResourceVersion())
		case watch.Error:
			worked := events > 0 || time.Since(start) >= shortWatch
			return worked, fmt.Errorf("watch %s from resourceVersion %s: %w", r.opts.Name, r.LastSyncResourceVersion(), statusError(ev.Object))
		default:
			events++
			r.report(ctx, fmt.Errorf("watch %s: %w: unknown event type %q", r.opts.Name, ErrMalformedEvent, ev.Type))
		}
	}
}

func (r *Reflector[T]) resyncLoop(ctx context.Context) {
	t := time.NewTicker(r.opts.ResyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			klog.FromContext(ctx).V(4).Info("resync")
			if err := r.sink.Resync(); err != nil {
				klog.FromContext(ctx).Error(err, "resync failed")
			}
		}
	}
}
