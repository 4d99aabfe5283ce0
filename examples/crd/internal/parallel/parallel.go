// Package parallel runs indexed work on a few goroutines, for the demo and
// the end-to-end tests, which create and delete objects in bulk.
package parallel

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// Do runs fn(from..to-1) on up to workers goroutines and returns the first
// error fn returns (no further index is handed out after it), or ctx's error
// if ctx ended first. It returns once every fn call has returned.
func Do(ctx context.Context, workers, from, to int, fn func(i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	next.Store(int64(from))
	var wg sync.WaitGroup
	for range max(0, min(workers, to-from)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= to || ctx.Err() != nil {
					return
				}
				if err := fn(i); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}
