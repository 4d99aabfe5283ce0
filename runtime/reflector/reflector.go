package reflector

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
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
// Reflector calls Add, Update, Delete and Replace from its Run goroutine.
// None of them should block for long: the watch is not read while they run.
// There is no resync here: the informer resyncs each handler from its cache.
type Sink[T any] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	// Replace hands over a complete list of the resource at resourceVersion
	// (a LIST, or a WatchList's initial events).
	Replace(objs []T, resourceVersion string) error
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
	// WatchList selects streaming initial lists: nil tries it and falls back to
	// list+watch when the server refuses; false never tries it, and neither
	// does a ListerWatcher whose IsWatchListSemanticsUnSupported method
	// returns true (client-go's fake clientsets; see listwatch.Funcs).
	WatchList *bool
	// WatchListTimeout bounds how long a WatchList waits for the
	// initial-events-end bookmark that ends its initial stream: 0 means one
	// minute (the API server's default request timeout, which bounds the
	// LIST it replaces too), negative means no bound but the watch's own
	// timeout (client-go's behaviour). A stream still open at the bound is
	// stopped, reported (ErrInitialEventsTimeout) and the Reflector uses
	// LIST+WATCH from then on: a source that did not end its initial stream
	// once (a fake clientset without the IsWatchListSemanticsUnSupported
	// marker, a proxy that drops bookmarks) will not next time either. A
	// stream waiting for longer than 10s is reported in LastError before
	// the bound, so a stuck WaitForCacheSync names it.
	WatchListTimeout time.Duration
	// WatchErrorHandler is called with every list/watch error (after logging),
	// from the Run goroutine: it must not block for long.
	WatchErrorHandler func(ctx context.Context, err error)
	// InitialBackoff and MaxBackoff bound the wait after a failed list or
	// watch (or a watch that ended within a second of its start); 0 means
	// 500ms and 2s. The n-th failure in a row waits a random duration in
	// [b/2, b] with b = min(InitialBackoff·2ⁿ⁻¹, MaxBackoff); a watch that
	// stayed open a second and did not end in a refused event starts again
	// from InitialBackoff. An event or a
	// LIST the Reflector refuses counts as a failure (see the package doc,
	// "Hostile servers"). The request after the wait also waits for its
	// turn of Options.Budget; with a Budget of interval I shared by n
	// Reflectors, each one's step is capped at max(I, MaxBackoff − (n−1)·I),
	// so that no wait exceeds max(MaxBackoff, n·I).
	InitialBackoff, MaxBackoff time.Duration
	// Scope, when known, is checked against every object listed or watched:
	// a namespaced resource's objects need a namespace, a cluster-scoped
	// one's must have none. Objects that fail it (or have no name) are
	// reported (ErrInvalidObject) and not stored. The zero value checks
	// names only.
	Scope Scope
	// Metrics, when not nil, observes lists, watches, relists and events
	// (see Metrics).
	Metrics Metrics
	// Relist, when not nil, makes the Reflector relist whenever it fires
	// (see RelistTrigger): for a ListerWatcher whose ListOptions change while
	// it runs. Nil costs nothing.
	Relist *RelistTrigger
	// Budget, when not nil, is the request budget this Reflector shares
	// with others (an informer's Reflectors, one per namespace): their
	// retries together wait for its turns (see Budget). Nil gives the
	// Reflector a Budget of its own, of DefaultBudgetInterval.
	Budget *Budget
	// ObjectType, when not nil, is the Go type every listed or watched
	// object must have; a watch event carrying another is malformed
	// (ErrMalformedEvent). It is for a Reflector whose T is an interface
	// (cache.Obj, as the informer's untyped core uses); with a concrete T,
	// T itself is the check.
	ObjectType reflect.Type
}

// Scope is whether a resource's objects live in namespaces (see
// Options.Scope).
type Scope uint8

// The scopes a resource can have.
const (
	ScopeUnknown Scope = iota
	ScopeNamespaced
	ScopeCluster
)

// ErrMalformedEvent is wrapped by the error reported for a watch event the
// Reflector cannot use (undecodable, an object that is not T, a BOOKMARK
// without metadata, an unknown event type). The event is not applied and
// ends the watch (see the package doc, "Hostile servers").
var ErrMalformedEvent = errors.New("malformed watch event")

// ErrInvalidObject is wrapped by the error reported for a listed or watched
// object that cannot be stored under a key of its own: it has no
// metadata.name (or one with a "/"), or a namespace that contradicts
// Options.Scope. It is not stored: the watch event ends the watch, the LIST
// (or WatchList) fails and is retried (see the package doc, "Hostile
// servers").
var ErrInvalidObject = errors.New("object without a valid key")

// ErrStaleResourceVersion is wrapped by the error reported for a watch event
// whose resourceVersion is not newer than the one the watch resumed from (or
// than an event it delivered before), and for a bookmark older than that: an
// API server never sends one, so the stream is not to be trusted. The event
// is not applied and ends the watch (see the package doc, "Hostile servers").
var ErrStaleResourceVersion = errors.New("resourceVersion older than the watch's")

// ErrInitialEventsTimeout is wrapped by the error reported when a WatchList's
// initial stream has not ended (no initial-events-end bookmark) within
// Options.WatchListTimeout (the Reflector then falls back to LIST+WATCH), and
// by the one reported while it waits, after 10s.
var ErrInitialEventsTimeout = errors.New("no initial-events-end bookmark")

// ErrInvalidResourceVersion is wrapped by the error reported for a
// resourceVersion that is not a decimal uint64, as every API server's is. An
// event or bookmark carrying one is not applied and ends the watch; a LIST
// at one, or with an item carrying one, fails and is retried (see the
// package doc, "Hostile servers").
var ErrInvalidResourceVersion = errors.New("invalid resourceVersion")

// MalformedObject is the object of a watch event that a ListerWatcher read
// but could not decode into T (see wire.DecodeError). The Reflector reports
// Err, wrapped in ErrMalformedEvent, stops that watch and, after a backoff
// step, watches again from the last resourceVersion it applied, so the event
// is read again (garbage on the wire is usually gone the second time)
// instead of missed; after three such watches in a row without progress it
// relists (see the package doc, "Hostile servers"). A ListerWatcher whose
// stream lost its framing sends one such event and then closes the watch.
type MalformedObject struct {
	Err error
}

// GetObjectKind implements runtime.Object; a MalformedObject has no kind.
func (m *MalformedObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object.
func (m *MalformedObject) DeepCopyObject() runtime.Object { c := *m; return &c }

// errShortWatch is the wait reason for a watch the server closed within
// shortWatch of its start, whatever it delivered: the server is likely
// unhealthy, so the Reflector backs off before watching again.
var errShortWatch = errors.New("watch closed within a second of its start")

// RejectMetrics is implemented by a Metrics (Options.Metrics) that counts
// what the Reflector refused to apply (see the package doc, "Hostile
// servers"). NoMetrics implements it.
type RejectMetrics interface {
	// Rejected is called, from the Run goroutine, for every watch event
	// not applied and every LIST or WatchList initial stream not used
	// because of its content (not for failed requests), with the error
	// reported for it (wrapping ErrMalformedEvent, ErrInvalidObject,
	// ErrInvalidResourceVersion or ErrStaleResourceVersion).
	Rejected(err error)
}

const (
	// Watch timeouts are random in [minWatchTimeout, 2·minWatchTimeout), as
	// client-go's, so the watches of many clients do not expire together.
	minWatchTimeout = 5 * time.Minute
	// shortWatch is how long a watch must stay open to count as healthy: one
	// that ends sooner is backed off (a server that closes every watch after
	// one event would otherwise be hammered), one that lasted resets the
	// backoff.
	shortWatch = time.Second
	// longWatch is how long a watch must have stayed open for the watch
	// that resumes it not to wait for a turn of the Budget (see Budget).
	longWatch = time.Minute
	// maxRejectedWatches is how many watches in a row may end in a rejected
	// event without the resourceVersion advancing before the Reflector
	// relists instead of resuming.
	maxRejectedWatches = 3
	// defaultWatchListTimeout is Options.WatchListTimeout's default, and
	// watchListStall how long an initial stream may wait before LastError
	// says so (client-go logs a warning at that interval).
	defaultWatchListTimeout = time.Minute
	watchListStall          = 10 * time.Second
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
//   - 410 Expired/Gone on the watch (the resourceVersion was compacted), and
//     400 Bad Request or 422 Invalid (the server rejects the resourceVersion),
//     whether as the watch's answer or as an ERROR event, make it relist: a
//     rejected resourceVersion is never retried. It relists at once after a
//     watch that stayed open a minute, else after a backoff step.
//   - A watch that ends within a second of its start, whatever it delivered,
//     is followed by a backoff step, so watch requests per second stay
//     bounded whatever the server does; one that stayed open resets the
//     backoff and is resumed at once if it stayed open a minute, else at the
//     next free turn of the Budget (at once unless the Reflectors sharing it
//     are backing off).
//   - While backing off, every request waits for a turn of the Budget
//     (Options.Budget), which the Reflectors of an informer share: about
//     one request a second for the informer, not per Reflector.
//   - Events and LISTs that a broken server or proxy garbled are refused by
//     one rule (package doc, "Hostile servers"): never applied, reported,
//     counted, and followed by a backoff step.
//   - Every error goes to Options.WatchErrorHandler and LastError and is
//     followed by a wait: the Retry-After of a 429 (or any error suggesting a
//     client delay), else an exponential backoff with jitter (see
//     Options.InitialBackoff). Errors never stop the Reflector: a 403 or 404
//     on LIST is retried forever, and the informer surfaces LastError.
//   - WatchList (Options.WatchList nil or true): the first sync is a watch with
//     sendInitialEvents=true; its ADDED events up to the bookmark annotated
//     k8s.io/initial-events-end become one Sink.Replace, and the same watch
//     goes on. If the server refuses it (400/422, or such an ERROR event before
//     the end marker), or the stream does not end within
//     Options.WatchListTimeout (one minute; client-go waits up to the watch
//     timeout, 5 to 10 minutes, and a fake's forever), the Reflector uses
//     LIST from then on; after any other failure it LISTs this once and
//     tries WatchList again on the next relist.
//   - Options.Relist (not in client-go): when its RelistTrigger fires, the
//     open watch is stopped and the Reflector relists, so ListOptions that
//     changed (a shard's selector) take effect without a gap.
//   - HasSynced is true once the initial list is applied and a watch after
//     it was accepted (package doc, "Synced"): a client that may list but
//     not watch is never synced. client-go's is true once the list is.
//
// A Reflector is run once. LastSyncResourceVersion, LastError, HasSynced and
// Synced are safe for concurrent use.
type Reflector[T cache.Obj] struct {
	lw   ListerWatcher[T]
	sink Sink[T]
	opts Options

	running atomic.Bool

	mu      sync.Mutex
	lastRV  string
	lastErr error

	budget *Budget

	// synced is closed once the Reflector has synced (see Synced).
	synced chan struct{}

	// Owned by the Run goroutine.
	isSynced    bool // synced is closed
	freeWatch   bool // the next watch is the first after the initial LIST: no Budget turn
	listedOnce  bool // a sync has succeeded
	backoff     *backoff
	maxBackoff  time.Duration // the backoff's cap before the Budget's (Options.MaxBackoff)
	turn        bool          // the next request has its turn booked (wait)
	noWatchList bool
	// objectRVs says the source's objects carry resourceVersions, so they
	// are checked (false for client-go's fakes; see objectRVsChecked).
	objectRVs   bool
	resumeRV    uint64    // lastRV as a number, 0 before the first sync
	watchStart  time.Time // when the watch watchList returned was opened
	rejectedRun int       // watches in a row ended by a rejected event, without progress
	listNext    bool      // a WatchList's content was refused: LIST at the next sync
}

// New returns a Reflector that reads lw into sink. It does nothing until Run.
func New[T cache.Obj](lw ListerWatcher[T], sink Sink[T], opts Options) *Reflector[T] {
	if opts.PageSize < 0 {
		opts.PageSize = 0
	}
	if opts.WatchListTimeout == 0 {
		opts.WatchListTimeout = defaultWatchListTimeout
	}
	if opts.Name == "" {
		var zero T
		opts.Name = fmt.Sprintf("%T", zero)
	}
	b := opts.Budget
	if b == nil {
		b = NewBudget(0)
	}
	b.join()
	bo := newBackoff(opts.InitialBackoff, opts.MaxBackoff)
	return &Reflector[T]{
		lw:          lw,
		sink:        sink,
		opts:        opts,
		budget:      b,
		backoff:     bo,
		maxBackoff:  bo.max,
		synced:      make(chan struct{}),
		noWatchList: opts.WatchList != nil && !*opts.WatchList || watchListUnsupported(lw),
		objectRVs:   !watchListUnsupported(lw),
	}
}

// watchListUnsupported reports whether lw says it cannot serve WatchList
// semantics, with the marker client-go's fake clientsets put on their
// ListerWatchers (IsWatchListSemanticsUnSupported; listwatch.Funcs passes it
// on): such a source never sends the initial-events-end bookmark, so the
// Reflector lists instead of waiting for it.
func watchListUnsupported(lw any) bool {
	m, ok := lw.(interface{ IsWatchListSemanticsUnSupported() bool })
	return ok && m.IsWatchListSemanticsUnSupported()
}

// Run lists and watches until ctx ends, then returns nil once the open watch
// is stopped.
// Errors are retried, never returned; see Reflector. A Reflector runs once: a
// second call returns an error at once.
func (r *Reflector[T]) Run(ctx context.Context) error {
	if !r.running.CompareAndSwap(false, true) {
		return fmt.Errorf("reflector %s: Run called twice", r.opts.Name)
	}
	ctx = LogContext(ctx, r.opts.Name)
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

// HasSynced reports whether the Reflector has synced: its initial list
// (a LIST, or a WatchList's initial events) has been handed to the Sink and
// the server has accepted a watch after it (a WatchList's own stream, whose
// initial-events-end bookmark arrived, or the watch that follows the LIST,
// once the server answered it 200). A client that may list but not watch
// (RBAC) therefore never syncs: its list could not be kept up to date. It
// stays true once true (relists do not reset it). Safe for concurrent use.
func (r *Reflector[T]) HasSynced() bool {
	select {
	case <-r.synced:
		return true
	default:
		return false
	}
}

// Synced returns a channel closed when HasSynced becomes true.
func (r *Reflector[T]) Synced() <-chan struct{} { return r.synced }

// markSynced makes HasSynced true, once.
func (r *Reflector[T]) markSynced() {
	if !r.isSynced {
		r.isSynced = true
		close(r.synced)
	}
}

// setLastRV makes rv, a valid resourceVersion, the one to resume from.
func (r *Reflector[T]) setLastRV(rv string) {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return
	}
	r.setResumeRV(rv, n)
}

// setResumeRV is setLastRV for rv already parsed as n.
func (r *Reflector[T]) setResumeRV(rv string, n uint64) {
	r.resumeRV = n
	r.mu.Lock()
	r.lastRV = rv
	r.mu.Unlock()
	if m := r.opts.Metrics; m != nil {
		m.Synced(rv)
	}
}

// loop is the Run state machine: sync (list or WatchList), then watch, until
// ctx ends.
func (r *Reflector[T]) loop(ctx context.Context) {
	logger := klog.FromContext(ctx)
	needSync := true
	relist := func(c RelistCause) {
		needSync = true
		if m := r.opts.Metrics; m != nil {
			m.Relist(c)
		}
	}
	relist(RelistInitial)
	var w watch.Interface // a WatchList watch to go on with, or nil
	// requested is closed when Options.Relist fires after the last sync
	// began (nil without a trigger: never).
	var requested <-chan struct{}
	for ctx.Err() == nil {
		if needSync {
			var err error
			requested = r.opts.Relist.armed()
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
			r.rejectedRun = 0
			if w != nil {
				// A WatchList: the server accepted the watch and streamed
				// the initial list through it.
				r.markSynced()
			} else if !r.listedOnce {
				// The watch after the initial LIST decides HasSynced;
				// it goes at once, without a turn of the Budget, so that
				// a new informer's sync is not held back by the turns its
				// LIST took (see Budget).
				r.freeWatch = true
			}
			r.listedOnce = true
			logger.V(2).Info("cache populated", "resourceVersion", r.LastSyncResourceVersion())
		}
		if fired(requested) {
			// The options changed while listing: the watch (a WatchList's,
			// or the next one) would carry the old selection or a new one
			// from an old resourceVersion.
			if w != nil {
				stopWatch(w)
				w = nil
			}
			logger.V(2).Info("relist requested: list options changed")
			relist(RelistRequested)
			continue
		}
		end := r.watch(ctx, w, requested)
		w = nil
		if ctx.Err() != nil {
			return
		}
		if end.lasted && end.rejected == nil {
			// It stayed open and nothing it sent was refused: healthy.
			r.backoff.reset()
		}
		switch {
		case end.requested:
			logger.V(2).Info("relist requested: list options changed", "resourceVersion", r.LastSyncResourceVersion())
			relist(RelistRequested)
		case end.rejected != nil:
			// Not applied, reported, and backed off like a failed request
			// whatever the watch delivered before; resumed from the last
			// resourceVersion applied, so the event is read again (a proxy's
			// glitch is usually gone the second time). One the server keeps
			// sending is not: relist.
			if end.progressed {
				r.rejectedRun = 0
			}
			r.rejectedRun++
			if r.rejectedRun > maxRejectedWatches {
				logger.V(2).Info("watches keep ending in events that cannot be applied; relisting", "resourceVersion", r.LastSyncResourceVersion())
				relist(RelistUndecodable)
			}
			r.wait(ctx, end.rejected)
		case end.err == nil && end.lasted:
			// The server closed the watch (timeout, restart): resume from the
			// last resourceVersion, at once after a long-lived watch (the
			// server's timeout, a restart), else at the Budget's next free
			// turn, which is at once unless other Reflectors sharing it are
			// backing off.
			if end.open < longWatch {
				r.pace(ctx)
			}
		case end.err == nil:
			logger.V(2).Info("watch closed soon after it opened; backing off", "events", end.events)
			r.wait(ctx, errShortWatch)
		case needsRelist(end.err):
			r.report(ctx, end.err)
			if isExpired(end.err) {
				relist(RelistExpired)
			} else {
				relist(RelistRejected)
			}
			if end.open < longWatch {
				// Relisting right away could loop hot against a server that
				// rejects every watch, or every watch after a second; only a
				// long-lived watch earns that.
				r.wait(ctx, end.err)
			}
		default:
			r.report(ctx, end.err)
			r.wait(ctx, end.err)
		}
	}
}

// needsRelist reports whether err, a watch's failure, says the
// resourceVersion it started from is no good: expired (410), or rejected
// (400, 422). Watching again from it could only fail the same way.
func needsRelist(err error) bool {
	return isExpired(err) || apierrors.IsBadRequest(err) || apierrors.IsInvalid(err)
}

// sync replaces the Sink's content with the server's: by WatchList when
// enabled (returning the watch to go on with), else by a paged LIST.
func (r *Reflector[T]) sync(ctx context.Context) (watch.Interface, error) {
	listNext := r.listNext
	r.listNext = false
	if !r.noWatchList && !listNext {
		w, err := r.watchList(ctx)
		if err == nil || ctx.Err() != nil {
			return w, err
		}
		logger := klog.FromContext(ctx)
		switch {
		case isRejection(err):
			// Its content was refused (reported by the caller): back off
			// like any failed request, then LIST, in case only the watch
			// streams are broken, and WatchList again after that.
			r.listNext = true
			return nil, err
		case isRefusal(err):
			r.noWatchList = true
			logger.V(2).Info("server refused WatchList; using LIST from now on", "err", err)
		case errors.Is(err, ErrInitialEventsTimeout):
			r.noWatchList = true
			r.report(ctx, err)
		default:
			// A real failure (not a missing feature): report it, and make
			// progress with a LIST rather than wait for WatchList to recover.
			r.report(ctx, err)
			logger.V(2).Info("WatchList failed; falling back to LIST this time")
		}
	}
	if m := r.opts.Metrics; m != nil {
		start := time.Now()
		err := r.list(ctx)
		m.ListDone(time.Since(start), err)
		return nil, err
	}
	return nil, r.list(ctx)
}

// isRefusal reports whether err says the server does not support WatchList
// (as opposed to a transient failure).
func isRefusal(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsMethodNotSupported(err) || apierrors.IsNotAcceptable(err)
}

// isRejection reports whether err says the content the server sent was
// refused (see the package doc, "Hostile servers").
func isRejection(err error) bool {
	return errors.Is(err, ErrMalformedEvent) || errors.Is(err, ErrInvalidObject) ||
		errors.Is(err, ErrInvalidResourceVersion) || errors.Is(err, ErrStaleResourceVersion)
}

func isExpired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

func (r *Reflector[T]) watchTimeout() *int64 {
	s := int64(minWatchTimeout.Seconds() * (1 + rand.Float64()))
	return &s
}
