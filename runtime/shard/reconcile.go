package shard

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// flight is a key being reconciled by this replica (Begin without done yet).
type flight struct {
	cancels map[int]context.CancelFunc
}

// Begin claims key for one reconcile: when this replica owns key it returns
// a ctx derived from ctx, a done func to call exactly once when the reconcile
// has ended, and true; otherwise nil, nil, false, and the caller must skip
// key (another replica owns it, or will).
//
// While a reconcile of key is in progress, this replica does not announce a
// membership that gives key to another replica, so the new owner cannot
// start before done is called: that is what makes handover free of overlap.
// The ctx is cancelled when the renew deadline passes (the others may take
// over after LeaseDuration: the reconcile has LeaseDuration-RenewDeadline to
// notice) and when Run stops. Safe for concurrent use; never blocks.
func (s *Shard) Begin(ctx context.Context, key string) (context.Context, func(), bool) {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	// Under fmu: a shrink stores the assignment before the writer checks
	// the reconciles in flight under fmu, so either this sees the shrink or
	// the writer sees this flight.
	if !s.Owns(key) {
		return nil, nil, false
	}
	f := s.inflight[key]
	if f == nil {
		f = &flight{cancels: map[int]context.CancelFunc{}}
		s.inflight[key] = f
	}
	s.nextFlight++
	id := s.nextFlight
	rctx, cancel := context.WithCancel(ctx)
	f.cancels[id] = cancel
	var once bool
	done := func() {
		s.fmu.Lock()
		defer s.fmu.Unlock()
		if once {
			return
		}
		once = true
		cancel()
		delete(f.cancels, id)
		if len(f.cancels) == 0 {
			delete(s.inflight, key)
		}
		close(s.drained)
		s.drained = make(chan struct{})
		poke(s.wakeWriter)
	}
	return rctx, done, true
}

// Reconciler wraps reconcile for workqueue.Queue.Run (or any worker loop):
// a key this replica does not own is skipped (nil, so the queue forgets its
// backoff: its owner reconciles it), an owned one is reconciled under Begin.
// Keys enqueued while owned and lost before a worker took them are thus
// never reconciled here.
func (s *Shard) Reconciler(reconcile func(ctx context.Context, key string) error) func(ctx context.Context, key string) error {
	return func(ctx context.Context, key string) error {
		rctx, done, ok := s.Begin(ctx, key)
		if !ok {
			return nil
		}
		defer done()
		return reconcile(rctx, key)
	}
}

// idleExceptOwned reports whether every reconcile in flight is of a key
// this replica still owns (so a new view may be announced).
func (s *Shard) idleExceptOwned() bool {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	a := s.asg.Load()
	for key := range s.inflight {
		if !a.owns(key) {
			return false
		}
	}
	return true
}

// waitIdle waits until no reconcile is in flight, or ctx ends (false).
func (s *Shard) waitIdle(ctx context.Context) bool {
	for {
		s.fmu.Lock()
		n, ch := len(s.inflight), s.drained
		s.fmu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-ch:
		}
	}
}

// cancelInflight cancels the ctx of every reconcile in flight.
func (s *Shard) cancelInflight() {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	for _, f := range s.inflight {
		for _, c := range f.cancels {
			c()
		}
	}
}

func isNotFound(err error) bool      { return err != nil && apierrors.IsNotFound(err) }
func isConflict(err error) bool      { return err != nil && apierrors.IsConflict(err) }
func isAlreadyExists(err error) bool { return err != nil && apierrors.IsAlreadyExists(err) }

func metaMicroTime(t time.Time) metav1.MicroTime { return metav1.NewMicroTime(t) }
