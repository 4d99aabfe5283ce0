package reflector

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/listpage"
	"github.com/informer-gen/informer-gen/runtime/internal/logctx"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
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
	// that resumes it not to wait for a turn of the Budget (see Options.InitialBackoff).
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
// Errors never stop it: each goes to Options.WatchErrorHandler and LastError
// and is retried after a wait. What it does in each case, and where that
// differs from client-go's Reflector, is described once, in the package doc
// ("States", "Hostile servers", "Synced"); state.go implements it.
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

	// objectRVs says the source's objects carry resourceVersions, so they
	// are checked (false for client-go's fakes; see watchListUnsupported).
	objectRVs bool

	// What other goroutines read (LastSyncResourceVersion, LastError).
	mu      sync.Mutex
	lastRV  string
	lastErr error

	// synced is closed once the Reflector has synced (see Synced); only the
	// Run goroutine closes it.
	synced chan struct{}

	// pacer is how the Run loop waits between requests (backoff, Budget).
	// What else the loop remembers is in its state (state.go).
	pacer pacer
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
	if t, ok := opts.Relist.(*relist.Trigger); ok && t == nil {
		opts.Relist = nil // a Shard without ByUID hands out none
	}
	appender, _ := lw.(listpage.Appender[T])
	return &Reflector[T]{
		lw:        lw,
		appender:  appender,
		sink:      sink,
		opts:      opts,
		objectRVs: !watchListUnsupported(lw),
		synced:    make(chan struct{}),
		pacer:     newPacer(opts.runtime.Budget, opts.InitialBackoff, opts.MaxBackoff),
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

// markSynced makes HasSynced true, once (Run goroutine only).
func (r *Reflector[T]) markSynced() {
	if !r.HasSynced() {
		close(r.synced)
	}
}

// publish makes rv, a valid resourceVersion, LastSyncResourceVersion (the
// loop's own copy, the number to resume from, is in its state).
func (r *Reflector[T]) publish(rv string) {
	r.mu.Lock()
	r.lastRV = rv
	r.mu.Unlock()
	if m := r.opts.Metrics; m != nil {
		m.Synced(rv)
	}
}

// parseRV returns rv as a number, and whether it is one.
func parseRV(rv string) (uint64, bool) {
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}
