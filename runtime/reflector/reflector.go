package reflector

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informer-gen/informer-gen/runtime/internal/budget"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/listpage"
	"github.com/informer-gen/informer-gen/runtime/internal/logctx"
)

const (
	// Watch timeouts are random in [minWatchTimeout, 2·minWatchTimeout), as
	// client-go's, so the watches of many clients do not expire together.
	minWatchTimeout = 5 * time.Minute
	// A WatchList's timeout is random in [minWatchListTimeout,
	// 2·minWatchListTimeout): the server ends a watch at its timeout,
	// initial events or not, so client-go's 5 to 10 minutes would cut a
	// stream of a million objects that is slow but moving (how long it may
	// go without progress is Options.WatchListTimeout). 30 minutes is what
	// an API server picks for a watch that asks for no timeout (its
	// --min-request-timeout, 1800s, randomised up to twice that).
	minWatchListTimeout = 30 * time.Minute
	// shortWatch is how long a watch must stay open to count as healthy: one
	// that ends sooner is backed off (a server that closes every watch after
	// one event would otherwise be hammered), one that lasted resets the
	// backoff.
	shortWatch = time.Second
	// longWatch is how long a watch must have stayed open for the watch
	// that resumes it not to wait for a turn of the Budget (see Options.Budget).
	longWatch = time.Minute
	// maxRejectedWatches is how many watches in a row may end in a rejected
	// event without the resourceVersion advancing before the Reflector
	// relists instead of resuming.
	maxRejectedWatches = 3
	// defaultWatchListTimeout is Options.WatchListTimeout's default (how
	// long an initial stream may go without progress), and watchListStall
	// how long it may go without progress before LastError says so
	// (client-go logs a warning at that interval).
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
//     random timeout in [5m, 10m) ([30m, 60m) for a WatchList, whose initial
//     stream the timeout bounds too). When the server closes it, the
//     Reflector watches again from the last resourceVersion it saw, without
//     relisting.
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
//     the end marker), the Reflector uses LIST from then on. If the stream
//     stalls, no event or bookmark for Options.WatchListTimeout (one minute
//     without progress, however long the stream has run; client-go waits
//     up to the watch timeout, 5 to 10 minutes from the start, and a
//     fake's forever), or fails otherwise, it LISTs this once and tries
//     WatchList again on the next relist.
//   - Options.Relist (not in client-go): when its trigger fires, the
//     open watch is stopped and the Reflector relists, so ListOptions that
//     changed (a shard's selector) take effect without a gap.
//   - HasSynced is true once the initial list is applied and a watch after
//     it was accepted (package doc, "Synced"): a client that may list but
//     not watch is never synced. client-go's is true once the list is.
//
// A Reflector is run once. LastSyncResourceVersion, LastError, HasSynced and
// Synced are safe for concurrent use.
type Reflector[T cache.Obj] struct {
	lw ListerWatcher[T]
	// appender is lw when it can append a LIST page to the list itself
	// (listpage.Appender, the runtime's adapter of a typed source), else nil.
	appender listpage.Appender[T]
	sink     Sink[T]
	opts     Options

	running atomic.Bool

	mu      sync.Mutex
	lastRV  string
	lastErr error

	budget *budget.Budget

	// synced is closed once the Reflector has synced (see Synced).
	synced chan struct{}

	// Owned by the Run goroutine: what the loop remembers across its states
	// (see next).
	isSynced    bool // synced is closed
	freeWatch   bool // the next watch is the first after the initial LIST: no Budget turn
	listedOnce  bool // a sync has succeeded
	backoff     *backoff
	maxBackoff  time.Duration // the backoff's cap before the Budget's (Options.MaxBackoff)
	turn        bool          // the next request has its turn booked (wait)
	noWatchList bool          // WatchList is off, or given up: syncs LIST
	// objectRVs says the source's objects carry resourceVersions, so they
	// are checked (false for client-go's fakes; see watchListUnsupported).
	objectRVs   bool
	resumeRV    uint64 // lastRV as a number, 0 before the first sync
	rejectedRun int    // watches in a row ended by a rejected event, without progress
	// requested is closed when Options.Relist fires after the last sync
	// step (initialEvents, listing) began (nil without a trigger: never).
	requested <-chan struct{}
	// requestedGen is Options.Relist's generation when requested was taken:
	// the Mark of the sync that began then (see replace).
	requestedGen uint64
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
		b = budget.New(0)
	}
	b.Join()
	bo := newBackoff(opts.InitialBackoff, opts.MaxBackoff)
	appender, _ := lw.(listpage.Appender[T])
	return &Reflector[T]{
		lw:          lw,
		appender:    appender,
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

// Run lists and watches until ctx ends, then returns nil once the open watch
// is stopped.
// Errors are retried, never returned; see Reflector. A Reflector runs once: a
// second call returns an error at once.
func (r *Reflector[T]) Run(ctx context.Context) error {
	if !r.running.CompareAndSwap(false, true) {
		return fmt.Errorf("reflector %s: Run called twice", r.opts.Name)
	}
	ctx = logctx.With(ctx, r.opts.Name)
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
