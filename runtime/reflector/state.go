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

// The Run loop is a state machine. Each turn of loop runs what the current
// state does (step: a request, or reading a watch) and gets a result; next,
// the one place where transitions are decided, turns the state and that
// result's outcome into the next state and what happens in between (a
// report, a relist counted, a wait). The states are kube-rs's
// watcher::State in Go; the transitions:
//
//	from           outcome           to
//	initialEvents  synced            watching, on the same watch
//	               refused           listing, WatchList given up
//	               timedOut, failed  listing
//	               rejected          listing, after a backoff step
//	listing        synced            resume
//	               rejected, failed  sync, after a backoff step
//	resume         opened            watching
//	               requested         sync
//	               expired, invalid  sync, after a backoff step
//	               failed            resume, after a backoff step
//	watching       closed            resume: after a backoff step if it was
//	                                 open < shortWatch, a Budget turn if
//	                                 < longWatch, else at once
//	               requested         sync
//	               rejected          resume (sync after maxRejectedWatches+1
//	                                 in a row), after a backoff step
//	               expired, invalid  sync, after a backoff step unless it
//	                                 was open ≥ longWatch
//	               failed            resume, after a backoff step
//
// where sync is initialEvents, or listing when WatchList is off or given up
// (syncState), and any outcome ends the loop once ctx has ended.

// phase names a state of the Run loop.
type phase uint8

const (
	// initialEvents: the Sink's content is to be (re)built, and WatchList
	// is on (Options.WatchList, the source's marker) and has not been given
	// up. The step opens a watch with sendInitialEvents=true and reads its
	// events up to the initial-events-end bookmark, then hands them to
	// Sink.Replace. Synced, it moves to watching with that same watch; the
	// server refusing WatchList moves to listing and gives WatchList up for
	// good; the stream stalling (no event or bookmark within
	// Options.WatchListTimeout) or another failure moves to listing at
	// once, this time only; the stream's content refused moves to listing
	// after a backoff step.
	initialEvents phase = iota + 1
	// listing: the Sink's content is to be (re)built by a LIST (all its
	// pages): WatchList is off, given up, or failed this time. Synced,
	// it moves to resume; failed, it backs off and starts the sync again
	// (syncState).
	listing
	// resume: the Sink holds the server's state up to
	// LastSyncResourceVersion and no watch is open. The step opens one from
	// there; the first after the initial LIST takes no Budget turn (see
	// Options.Budget), any other waits for one while the Reflector backs
	// off.
	// Opened, it moves to watching and the Reflector is synced; a 410 or a
	// 400/422 relists after a backoff step; another failure backs off and
	// resumes again; Options.Relist having fired relists at once.
	resume
	// watching: a watch is open (resume's, or initialEvents' stream after
	// its initial events). The step applies its events until it ends. Closed
	// by the server, it resumes: after a backoff step if it lasted less
	// than shortWatch, else at the Budget's next free turn if it lasted
	// less than longWatch, else at once. A refused event resumes after a
	// backoff step, or relists when more than maxRejectedWatches watches in
	// a row ended so without progress. An ERROR event or failure goes as in
	// resume. Options.Relist firing relists at once. One that stayed open
	// shortWatch and ended without a refused event resets the backoff.
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

// state is where the Run loop is: a phase, and in watching the open watch.
type state struct {
	phase phase
	// w is watching's open watch, opened at since (before its request).
	w     watch.Interface
	since time.Time
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
	// report, when not nil, is reported (LastError, WatchErrorHandler, log).
	report error
	// relist, when not 0, is counted (Metrics.Relist).
	relist relistCause
	pause  pause
	after  error // what pauseBackoff backs off after
}

// loop runs the state machine until ctx ends.
func (r *Reflector[T]) loop(ctx context.Context) {
	r.relisted(relistInitial)
	s := r.syncState()
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
		m := r.next(ctx, s, res)
		s = m.to
		if m.report != nil {
			r.report(ctx, m.report)
		}
		if m.relist != 0 {
			r.relisted(m.relist)
		}
		switch m.pause {
		case pauseTurn:
			r.pace(ctx)
		case pauseBackoff:
			r.wait(ctx, m.after)
		}
	}
}

// relisted counts a relist (Metrics.Relist).
func (r *Reflector[T]) relisted(c relistCause) {
	if m := r.opts.Metrics; m != nil {
		m.Relist(c.String())
	}
}

// syncState is where a sync (the first, or a relist) starts: initialEvents
// unless WatchList is off or given up, else listing.
func (r *Reflector[T]) syncState() state {
	if r.noWatchList {
		return state{phase: listing}
	}
	return state{phase: initialEvents}
}

// step does what state s does and says how it ended.
func (r *Reflector[T]) step(ctx context.Context, s state) result {
	switch s.phase {
	case initialEvents:
		r.requested, r.requestedGen = r.opts.Relist.ArmedAt()
		w, since, err := r.watchList(ctx)
		switch {
		case ctx.Err() != nil:
			return result{out: outDone, w: w}
		case err == nil:
			return result{out: outSynced, w: w, since: since}
		case isRejection(err):
			return result{out: outRejected, err: err}
		case isRefusal(err):
			return result{out: outRefused, err: err}
		case errors.Is(err, ErrInitialEventsTimeout):
			return result{out: outTimedOut, err: err}
		}
		return result{out: outFailed, err: err}
	case listing:
		r.requested, r.requestedGen = r.opts.Relist.ArmedAt()
		err := r.timedList(ctx)
		switch {
		case ctx.Err() != nil:
			return result{out: outDone}
		case err == nil:
			return result{out: outSynced}
		case isRejection(err):
			return result{out: outRejected, err: err}
		}
		return result{out: outFailed, err: err}
	case resume:
		if relist.Fired(r.requested) {
			return result{out: outRequested}
		}
		since := time.Now()
		w, err := r.openWatch(ctx)
		if ctx.Err() != nil {
			return result{out: outDone, w: w}
		}
		if err != nil {
			return result{out: watchFailure(err), err: err}
		}
		return result{out: outOpened, w: w, since: since}
	case watching:
		return r.read(ctx, s.w, s.since)
	}
	// Not a state: next starts a sync after a backoff step.
	return result{out: outFailed, err: fmt.Errorf("reflector %s: no state %d", r.opts.Name, s.phase)}
}

// next is the transition function: from state s, after the step's result
// res, the next state and what happens before it. It updates what the
// Reflector remembers across states (WatchList given up, the first sync
// done, the run of rejected watches, the backoff's reset, synced).
func (r *Reflector[T]) next(ctx context.Context, s state, res result) move {
	logger := klog.FromContext(ctx)
	switch s.phase {
	case initialEvents:
		switch res.out {
		case outSynced:
			// The server accepted the watch and streamed the initial
			// list through it.
			r.markSynced()
			r.populated(ctx)
			return move{to: state{phase: watching, w: res.w, since: res.since}}
		case outRefused:
			r.noWatchList = true
			logger.V(2).Info("server refused WatchList; using LIST from now on", "err", res.err)
			return move{to: state{phase: listing}}
		case outTimedOut:
			// The stream stalled (no event or bookmark within
			// Options.WatchListTimeout): a LIST for this sync, and
			// WatchList again at the next; a stream that is slow but
			// moving never gets here.
			return move{to: state{phase: listing}, report: res.err}
		case outRejected:
			// Its content was refused: back off like any failed request,
			// then LIST, in case only the watch streams are broken, and
			// WatchList again at the next sync.
			return move{to: state{phase: listing}, report: res.err, pause: pauseBackoff, after: res.err}
		}
		// A real failure (not a missing feature): make progress with a
		// LIST rather than wait for WatchList to recover.
		logger.V(2).Info("WatchList failed; falling back to LIST this time")
		return move{to: state{phase: listing}, report: res.err}
	case listing:
		if res.out == outSynced {
			if !r.listedOnce {
				// The watch after the initial LIST decides HasSynced;
				// it goes at once, without a turn of the Budget, so that
				// a new informer's sync is not held back by the turns its
				// LIST took (see Options.Budget).
				r.freeWatch = true
			}
			r.populated(ctx)
			return move{to: state{phase: resume}}
		}
		return move{to: r.syncState(), report: res.err, pause: pauseBackoff, after: res.err}
	case resume:
		switch res.out {
		case outOpened:
			// The server accepted it (a REST watch returns once the
			// response headers came back 200).
			r.markSynced()
			r.clearErr()
			return move{to: state{phase: watching, w: res.w, since: res.since}}
		case outRequested:
			logger.V(2).Info("relist requested: list options changed")
			return move{to: r.syncState(), relist: relistRequested}
		}
		return r.watchFailed(res)
	case watching:
		if res.open >= shortWatch && res.out != outRejected {
			// It stayed open and nothing it sent was refused: healthy.
			r.backoff.reset()
		}
		switch res.out {
		case outRequested:
			logger.V(2).Info("relist requested: list options changed", "resourceVersion", r.LastSyncResourceVersion())
			return move{to: r.syncState(), relist: relistRequested}
		case outRejected:
			// Not applied, reported, and backed off like a failed request
			// whatever the watch delivered before; resumed from the last
			// resourceVersion applied, so the event is read again (a
			// proxy's glitch is usually gone the second time). One the
			// server keeps sending is not: relist.
			if res.progressed {
				r.rejectedRun = 0
			}
			r.rejectedRun++
			if r.rejectedRun > maxRejectedWatches {
				logger.V(2).Info("watches keep ending in events that cannot be applied; relisting", "resourceVersion", r.LastSyncResourceVersion())
				return move{to: r.syncState(), relist: relistUndecodable, pause: pauseBackoff, after: res.err}
			}
			return move{to: state{phase: resume}, pause: pauseBackoff, after: res.err}
		case outClosed:
			switch {
			case res.open < shortWatch:
				logger.V(2).Info("watch closed soon after it opened; backing off", "events", res.events)
				return move{to: state{phase: resume}, pause: pauseBackoff, after: errShortWatch}
			case res.open < longWatch:
				// The server closed the watch (timeout, restart): resume
				// from the last resourceVersion at the Budget's next free
				// turn, which is at once unless other Reflectors sharing
				// it are backing off.
				return move{to: state{phase: resume}, pause: pauseTurn}
			}
			// A long-lived watch (the server's timeout, a restart):
			// resume at once.
			return move{to: state{phase: resume}}
		}
		return r.watchFailed(res)
	}
	return move{to: r.syncState(), pause: pauseBackoff, after: res.err}
}

// watchFailed is the transition after a watch that failed, to open
// (resume) or while open (watching): a resourceVersion the server no longer
// serves (410) or rejects (400, 422) relists, anything else resumes; both
// after a backoff step, except a relist after a watch that stayed open
// longWatch.
func (r *Reflector[T]) watchFailed(res result) move {
	var m move
	switch res.out {
	case outExpired:
		m = move{to: r.syncState(), relist: relistExpired}
	case outInvalid:
		m = move{to: r.syncState(), relist: relistRejected}
	default:
		m = move{to: state{phase: resume}}
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

// populated records a sync that put the list in the Sink.
func (r *Reflector[T]) populated(ctx context.Context) {
	r.rejectedRun = 0
	r.listedOnce = true
	klog.FromContext(ctx).V(2).Info("cache populated", "resourceVersion", r.LastSyncResourceVersion())
}

// timedList is list, timed for Metrics.ListDone.
func (r *Reflector[T]) timedList(ctx context.Context) error {
	m := r.opts.Metrics
	if m == nil {
		return r.list(ctx)
	}
	start := time.Now()
	err := r.list(ctx)
	m.ListDone(time.Since(start), err)
	return err
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
