package reflector

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/relist"
)

// The Run loop is a state machine: each turn runs what the current state
// does (step: a request, or reading a watch) and gets a result; next, a
// pure function of the state and that result, returns the next state and
// what happens in between (effects: synced, a report, a relist counted, a
// wait). The states are kube-rs's watcher::State in Go: each phase carries
// its own data (the open watch, the resourceVersion to resume from, the
// run of refused watches, the relist trigger as armed when the sync
// began), so nothing a transition reads or writes lives on the Reflector.
// The behaviour, state by state, is described once, in the package doc
// ("States"); TestNext lists every transition as a table.

// phase names a state of the Run loop (package doc, "States").
type phase uint8

const (
	// initialEvents: a sync by WatchList (the initial events of a watch
	// with sendInitialEvents=true, up to the initial-events-end bookmark).
	initialEvents phase = iota + 1
	// listing: a sync by LIST (every page), when WatchList is off, given up
	// or failed this time.
	listing
	// resume: the Sink holds the server's state up to rv; no watch is open.
	resume
	// watching: a watch is open (w, opened at since).
	watching
)

func (p phase) String() string {
	switch p {
	case initialEvents:
		return "initialEvents"
	case listing:
		return "listing"
	case resume:
		return "resume"
	case watching:
		return "watching"
	}
	return "unknown"
}

// memory is what the loop carries through every state for the
// Reflector's lifetime.
type memory struct {
	// noWatchList: WatchList is off (Options.WatchList, a source without
	// it) or the server refused it; syncs LIST.
	noWatchList bool
	// listedOnce: a sync has succeeded.
	listedOnce bool
}

// armed is Options.Relist as armed when a sync began: ch is closed once the
// trigger fires after that, gen is the generation the sync's relist.Mark
// carries. The zero value (no trigger) never fires.
type armed struct {
	ch  <-chan struct{}
	gen uint64
}

// fired reports whether the trigger fired since the sync began.
func (a armed) fired() bool { return relist.Fired(a.ch) }

// state is where the Run loop is: a phase and the data it carries.
type state struct {
	phase phase
	mem   memory
	// resume, watching: the trigger as armed when the last sync began; the
	// resourceVersion to resume from (0 before a sync, or from a source
	// without resourceVersions); how many watches in a row ended in a
	// refused event without progress.
	relist      armed
	rv          uint64
	rejectedRun int
	// resume: the first watch after the initial LIST, which takes no turn of
	// the Budget (package doc, "Synced").
	free bool
	// watching: the open watch, opened at since.
	w     watch.Interface
	since time.Time
}

// syncState is where a sync (the first, or a relist) starts: initialEvents
// unless WatchList is off or given up, else listing.
func syncState(mem memory) state {
	if mem.noWatchList {
		return state{phase: listing, mem: mem}
	}
	return state{phase: initialEvents, mem: mem}
}

// resumed is s's resume state: the same watch data, no watch open, rv the
// resourceVersion reached.
func (s state) resumed(rv uint64) state {
	return state{phase: resume, mem: s.mem, relist: s.relist, rv: rv, rejectedRun: s.rejectedRun}
}

// outcome is how a step ended.
type outcome uint8

const (
	// outDone: ctx ended; the loop returns.
	outDone outcome = iota
	// outSynced (initialEvents, listing): the list is in the Sink; from
	// initialEvents, its watch is open (result.w).
	outSynced
	// outOpened (resume): the server accepted the watch (result.w).
	outOpened
	// outClosed (watching): the server closed the watch (result.open says
	// after how long).
	outClosed
	// outRequested (resume, watching): Options.Relist fired.
	outRequested
	// outRefused (initialEvents): the server does not serve WatchList
	// (400, 422, 405, 406).
	outRefused
	// outTimedOut (initialEvents): the initial stream stalled, no event or
	// bookmark for Options.WatchListTimeout before its initial-events-end
	// bookmark.
	outTimedOut
	// outRejected (initialEvents, listing, watching): content the Reflector
	// refuses (package doc, "Hostile servers"), counted already.
	outRejected
	// outExpired (resume, watching): 410, the resourceVersion was compacted.
	outExpired
	// outInvalid (resume, watching): 400 or 422, the server rejects the
	// resourceVersion.
	outInvalid
	// outFailed: any other failure.
	outFailed
)

func (o outcome) String() string {
	return [...]string{"done", "synced", "opened", "closed", "requested", "refused", "timedOut", "rejected", "expired", "invalid", "failed"}[o]
}

// result is what a step yields.
type result struct {
	out outcome
	// err is why the step failed (nil for outDone, outSynced, outOpened,
	// outClosed and outRequested).
	err error
	// w is the watch the step opened and left open (outSynced from
	// initialEvents, outOpened), since when it was opened.
	w     watch.Interface
	since time.Time
	// armed (initialEvents, listing): the trigger as armed when the sync
	// began. rv: the resourceVersion reached (a sync's, a watching step's
	// last applied; a resume step's is its state's).
	armed armed
	rv    uint64
	// For a watching step: how long the watch stayed open, whether the
	// resourceVersion to resume from advanced, how many events it read.
	open       time.Duration
	progressed bool
	events     int
}

// pause is what the loop waits for between two steps.
type pause uint8

const (
	noPause pause = iota
	// pauseTurn waits for the Budget's next free turn (pace).
	pauseTurn
	// pauseBackoff waits a backoff step after move.after, or a 429's
	// Retry-After (wait).
	pauseBackoff
)

// move is a transition: the next state and what happens before it.
type move struct {
	to state
	// synced: the Reflector is synced now (HasSynced); populated: a sync
	// put its list in the Sink (logged); clearErr: LastError is nil again;
	// resetBackoff: the next failure waits from the initial step.
	synced, populated, clearErr, resetBackoff bool
	// report, when not nil, is reported (LastError, WatchErrorHandler, log).
	report error
	// relist, when not 0, is counted (Metrics.Relist).
	relist relistCause
	pause  pause
	after  error // what pauseBackoff backs off after
	// note, when not "", is logged at V(2) with noteKV (and the
	// resourceVersion, with noteRV).
	note   string
	noteKV []any
	noteRV bool
}

// loop runs the state machine until ctx ends.
func (r *Reflector[T]) loop(ctx context.Context) {
	r.relisted(relistInitial)
	s := syncState(memory{noWatchList: r.opts.WatchList != nil && !*r.opts.WatchList || !r.objectRVs})
	defer func() {
		if s.w != nil {
			stopWatch(s.w)
		}
	}()
	for ctx.Err() == nil {
		res := r.step(ctx, s)
		s.w = nil // the step consumed it
		if res.out == outDone || ctx.Err() != nil {
			if res.w != nil {
				stopWatch(res.w)
			}
			return
		}
		m := next(s, res)
		s = m.to
		r.apply(ctx, m)
	}
}

// apply does what move m says happens before its state.
func (r *Reflector[T]) apply(ctx context.Context, m move) {
	logger := klog.FromContext(ctx)
	if m.synced {
		r.markSynced()
	}
	if m.populated {
		logger.V(2).Info("cache populated", "resourceVersion", r.LastSyncResourceVersion())
	}
	if m.clearErr {
		r.clearErr()
	}
	if m.resetBackoff {
		r.pacer.backoff.reset()
	}
	if m.note != "" {
		kv := m.noteKV
		if m.noteRV {
			kv = append(kv, "resourceVersion", r.LastSyncResourceVersion())
		}
		logger.V(2).Info(m.note, kv...)
	}
	if m.report != nil {
		r.report(ctx, m.report)
	}
	if m.relist != 0 {
		r.relisted(m.relist)
	}
	switch m.pause {
	case pauseTurn:
		r.pacer.pace(ctx)
	case pauseBackoff:
		r.pacer.wait(ctx, m.after)
	}
}

// relisted counts a relist (Metrics.Relist).
func (r *Reflector[T]) relisted(c relistCause) {
	if m := r.opts.Metrics; m != nil {
		m.Relist(c.String())
	}
}

// step does what state s does and says how it ended.
func (r *Reflector[T]) step(ctx context.Context, s state) result {
	switch s.phase {
	case initialEvents:
		a := r.arm()
		w, since, rv, err := r.watchList(ctx, a.gen)
		switch {
		case ctx.Err() != nil:
			return result{out: outDone, w: w}
		case err == nil:
			return result{out: outSynced, w: w, since: since, armed: a, rv: rv}
		case isRejection(err):
			return result{out: outRejected, err: err}
		case isRefusal(err):
			return result{out: outRefused, err: err}
		case errors.Is(err, ErrInitialEventsTimeout):
			return result{out: outTimedOut, err: err}
		}
		return result{out: outFailed, err: err}
	case listing:
		a := r.arm()
		rv, err := r.timedList(ctx, a.gen)
		switch {
		case ctx.Err() != nil:
			return result{out: outDone}
		case err == nil:
			return result{out: outSynced, armed: a, rv: rv}
		case isRejection(err):
			return result{out: outRejected, err: err}
		}
		return result{out: outFailed, err: err}
	case resume:
		if s.relist.fired() {
			return result{out: outRequested, rv: s.rv}
		}
		since := time.Now()
		w, err := r.openWatch(ctx, s.free)
		if ctx.Err() != nil {
			return result{out: outDone, w: w}
		}
		if err != nil {
			return result{out: watchFailure(err), err: err, rv: s.rv}
		}
		return result{out: outOpened, w: w, since: since, rv: s.rv}
	case watching:
		return r.read(ctx, s)
	}
	// Not a state: next starts a sync after a backoff step.
	return result{out: outFailed, err: fmt.Errorf("reflector %s: no state %d", r.opts.Name, s.phase)}
}

// arm returns Options.Relist as armed now, when a sync begins.
func (r *Reflector[T]) arm() armed {
	if r.opts.Relist == nil {
		return armed{}
	}
	ch, gen := r.opts.Relist.ArmedAt()
	return armed{ch: ch, gen: gen}
}

// next is the transition function: from state s, after the step's result
// res, the next state and what happens before it. It reads nothing but its
// arguments.
func next(s state, res result) move {
	switch s.phase {
	case initialEvents:
		switch res.out {
		case outSynced:
			// The server accepted the watch and streamed the initial
			// list through it.
			mem := s.mem
			mem.listedOnce = true
			return move{to: state{phase: watching, mem: mem, relist: res.armed, rv: res.rv, w: res.w, since: res.since}, synced: true, populated: true}
		case outRefused:
			mem := s.mem
			mem.noWatchList = true
			return move{to: state{phase: listing, mem: mem}, note: "server refused WatchList; using LIST from now on", noteKV: []any{"err", res.err}}
		case outTimedOut:
			// The stream stalled (no event or bookmark within
			// Options.WatchListTimeout): a LIST for this sync, and
			// WatchList again at the next; a stream that is slow but
			// moving never gets here.
			return move{to: state{phase: listing, mem: s.mem}, report: res.err}
		case outRejected:
			// Its content was refused: back off like any failed request,
			// then LIST, in case only the watch streams are broken, and
			// WatchList again at the next sync.
			return move{to: state{phase: listing, mem: s.mem}, report: res.err, pause: pauseBackoff, after: res.err}
		}
		// A real failure (not a missing feature): make progress with a
		// LIST rather than wait for WatchList to recover.
		return move{to: state{phase: listing, mem: s.mem}, report: res.err, note: "WatchList failed; falling back to LIST this time"}
	case listing:
		if res.out == outSynced {
			mem := s.mem
			mem.listedOnce = true
			// The watch after the initial LIST decides HasSynced; it goes
			// at once, without a turn of the Budget, so that a new
			// informer's sync is not held back by the turns its LIST took
			// (see Options.InitialBackoff).
			return move{to: state{phase: resume, mem: mem, relist: res.armed, rv: res.rv, free: !s.mem.listedOnce}, populated: true}
		}
		return move{to: syncState(s.mem), report: res.err, pause: pauseBackoff, after: res.err}
	case resume:
		switch res.out {
		case outOpened:
			// The server accepted it (a REST watch returns once the
			// response headers came back 200).
			to := s.resumed(s.rv)
			to.phase, to.w, to.since = watching, res.w, res.since
			return move{to: to, synced: true, clearErr: true}
		case outRequested:
			return move{to: syncState(s.mem), relist: relistRequested, note: "relist requested: list options changed"}
		}
		return watchFailed(s, res)
	case watching:
		m := watchingNext(s, res)
		// It stayed open and nothing it sent was refused: healthy.
		m.resetBackoff = res.open >= shortWatch && res.out != outRejected
		return m
	}
	return move{to: syncState(s.mem), pause: pauseBackoff, after: res.err}
}

// watchingNext is next from watching (but the backoff's reset).
func watchingNext(s state, res result) move {
	switch res.out {
	case outRequested:
		return move{to: syncState(s.mem), relist: relistRequested, note: "relist requested: list options changed", noteRV: true}
	case outRejected:
		// Not applied, reported, and backed off like a failed request
		// whatever the watch delivered before; resumed from the last
		// resourceVersion applied, so the event is read again (a proxy's
		// glitch is usually gone the second time). One the server keeps
		// sending is not: relist.
		to := s.resumed(res.rv)
		if res.progressed {
			to.rejectedRun = 0
		}
		to.rejectedRun++
		if to.rejectedRun > maxRejectedWatches {
			return move{to: syncState(s.mem), relist: relistUndecodable, pause: pauseBackoff, after: res.err,
				note: "watches keep ending in events that cannot be applied; relisting", noteRV: true}
		}
		return move{to: to, pause: pauseBackoff, after: res.err}
	case outClosed:
		to := s.resumed(res.rv)
		switch {
		case res.open < shortWatch:
			return move{to: to, pause: pauseBackoff, after: errShortWatch,
				note: "watch closed soon after it opened; backing off", noteKV: []any{"events", res.events}}
		case res.open < longWatch:
			// The server closed the watch (timeout, restart): resume from
			// the last resourceVersion at the Budget's next free turn,
			// which is at once unless other Reflectors sharing it are
			// backing off.
			return move{to: to, pause: pauseTurn}
		}
		// A long-lived watch (the server's timeout, a restart): resume
		// at once.
		return move{to: to}
	}
	return watchFailed(s, res)
}

// watchFailed is the transition after a watch that failed, to open
// (resume) or while open (watching): a resourceVersion the server no longer
// serves (410) or rejects (400, 422) relists, anything else resumes; both
// after a backoff step, except a relist after a watch that stayed open
// longWatch.
func watchFailed(s state, res result) move {
	var m move
	switch res.out {
	case outExpired:
		m = move{to: syncState(s.mem), relist: relistExpired}
	case outInvalid:
		m = move{to: syncState(s.mem), relist: relistRejected}
	default:
		m = move{to: s.resumed(res.rv)}
	}
	m.report = res.err
	if m.relist == 0 || res.open < longWatch {
		// Relisting right away could loop hot against a server that
		// rejects every watch, or every watch after a second; only a
		// long-lived watch earns that.
		m.pause, m.after = pauseBackoff, res.err
	}
	return m
}

// timedList is list, timed for Metrics.ListDone.
func (r *Reflector[T]) timedList(ctx context.Context, gen uint64) (uint64, error) {
	m := r.opts.Metrics
	if m == nil {
		return r.list(ctx, gen)
	}
	start := time.Now()
	rv, err := r.list(ctx, gen)
	m.ListDone(time.Since(start), err)
	return rv, err
}

// watchFailure classifies err, why a watch failed to open or an ERROR
// event that ended it (a refused event is outRejected, see read).
func watchFailure(err error) outcome {
	switch {
	case isExpired(err):
		return outExpired
	case apierrors.IsBadRequest(err) || apierrors.IsInvalid(err):
		return outInvalid
	}
	return outFailed
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

// watchListTimeout is watchTimeout for a WatchList (see minWatchListTimeout).
func (r *Reflector[T]) watchListTimeout() *int64 {
	s := int64(minWatchListTimeout.Seconds() * (1 + rand.Float64()))
	return &s
}
