package reflector

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/budget"
)

// How a Reflector reports a failure and waits before its next request:
// the backoff step, the informer's Budget, and a 429's Retry-After.

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

// pacer is how a Reflector's Run loop waits between requests: its backoff,
// the Budget it shares with the informer's other Reflectors, and whether the
// next request's turn is booked. Owned by the Run goroutine.
type pacer struct {
	budget  *budget.Budget
	backoff *backoff
	// maxBackoff is the backoff's cap before the Budget's (Options.MaxBackoff).
	maxBackoff time.Duration
	// turn: the next request has its turn booked (wait, pace).
	turn bool
}

// newPacer joins b (a Budget of its own when nil) with a backoff from
// initial to ceiling (their defaults when 0).
func newPacer(b *budget.Budget, initial, ceiling time.Duration) pacer {
	if b == nil {
		b = budget.New(0)
	}
	b.Join()
	bo := newBackoff(initial, ceiling)
	return pacer{budget: b, backoff: bo, maxBackoff: bo.max}
}

// wait sleeps after err until the next request's turn: the server's
// suggested delay (429 Retry-After) exactly, else the later of the next
// backoff step and the Budget's next free turn (see Options.InitialBackoff). It returns
// false if ctx ended first.
func (r *pacer) wait(ctx context.Context, err error) bool {
	now := time.Now()
	var at time.Time
	if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
		at = now.Add(time.Duration(s) * time.Second)
		r.budget.Exact(at)
	} else {
		r.backoff.max = max(r.backoff.initial, r.budget.StepCap(r.maxBackoff))
		at = r.budget.Reserve(now, now.Add(r.backoff.next()), r.budget.Ceiling(r.maxBackoff))
	}
	return r.sleepUntil(ctx, at.Sub(now))
}

// pace sleeps until the Budget's next free turn (no backoff step): before
// resuming a watch that stayed open a second but less than longWatch, and
// before a request made while backing off without a turn (see request). It
// returns false if ctx ended first.
func (r *pacer) pace(ctx context.Context) bool {
	now := time.Now()
	at := r.budget.Reserve(now, now, r.budget.Ceiling(r.maxBackoff))
	return r.sleepUntil(ctx, at.Sub(now))
}

// request is called before every LIST (its first page) or WATCH request:
// it uses the turn wait or pace booked for it; without one, a Reflector
// that is backing off (since its last failure, until a healthy watch resets
// the backoff) waits for the Budget's next free turn, so the watch that
// follows a LIST after a failure is paced too; a healthy one's requests
// cost its Budget nothing. It returns ctx's error if ctx ended first.
func (r *pacer) request(ctx context.Context) error {
	if !r.turn && r.backoff.base > 0 && !r.pace(ctx) {
		return ctx.Err()
	}
	r.turn = false
	return nil
}

// sleepUntil sleeps d, the wait for a booked turn, unless ctx ends first
// (then it returns false).
func (r *pacer) sleepUntil(ctx context.Context, d time.Duration) bool {
	r.turn = true
	if d <= 0 {
		return ctx.Err() == nil
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
