package workqueue

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/redact"
)

// Run is the standard controller loop over q: it starts workers goroutines
// that Get keys and call reconcile(ctx, key). A nil error Forgets the key's
// backoff; an error (or a panic, which is recovered and turned into an
// error) requeues it rate-limited at the priority it was handed out with
// (AddWithOpts with RateLimited). Either way the key is Done.
//
// Run blocks until ctx ends or q is shut down by someone else. Cancelling ctx
// shuts q down (ShutDown: keys already queued are still handed to the
// workers, new ones are dropped) and Run returns only after every worker has
// returned, so reconcile should honour ctx. It returns nil, or an error when
// workers < 1. Errors are logged through klog.FromContext(ctx) with the key:
// a reconcile's error as it is (its text is the caller's), a panic by its
// value's type and the stack, never the value (docs/guide.md, "What reaches a
// log or an error").
func (q *Queue[K]) Run(ctx context.Context, workers int, reconcile func(ctx context.Context, key K) error) error {
	if workers < 1 {
		return fmt.Errorf("workqueue: Run with %d workers", workers)
	}
	logger := klog.FromContext(ctx)
	var wg sync.WaitGroup
	// Not context.AfterFunc: its goroutine could outlive Run.
	workersDone := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Go(func() {
		select {
		case <-ctx.Done():
			q.ShutDown()
		case <-workersDone:
		}
	})
	defer func() {
		close(workersDone)
		watcher.Wait()
	}()
	for range workers {
		wg.Go(func() {
			for {
				key, prio, shutdown := q.GetWithPriority()
				if shutdown {
					return
				}
				if err := q.reconcileOne(ctx, key, reconcile); err != nil {
					kv := []any{"key", key, "requeues", q.NumRequeues(key)}
					if pe, ok := err.(*redact.PanicError); ok {
						kv = append(kv, "stack", string(pe.Stack))
					}
					logger.Error(err, "reconcile failed, requeuing with backoff", kv...)
					q.AddWithOpts(AddOpts{RateLimited: true, Priority: prio}, key)
				} else {
					q.Forget(key)
				}
				q.Done(key)
			}
		})
	}
	wg.Wait()
	return nil
}

func (q *Queue[K]) reconcileOne(ctx context.Context, key K, reconcile func(context.Context, K) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			// The stack, and the value's type only: a reconcile may
			// panic with the object it read (docs/guide.md, "What
			// reaches a log or an error").
			err = &redact.PanicError{What: fmt.Sprintf("reconcile of key %v", key), Value: r, Stack: debug.Stack()}
		}
	}()
	return reconcile(ctx, key)
}
