package reflector

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

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
