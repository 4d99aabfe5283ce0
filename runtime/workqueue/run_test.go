package workqueue_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

func TestRunRetriesWithBackoffAndForgetsOnSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{
			RateLimiter: workqueue.NewExponentialRateLimiter[string](time.Second, time.Minute),
		})
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		var mu sync.Mutex
		var calls []time.Duration
		done := make(chan struct{})
		reconcile := func(_ context.Context, key string) error {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, time.Since(start))
			switch len(calls) {
			case 1:
				return errors.New("transient")
			case 2:
				panic("boom") // recovered, requeued like an error
			case 3:
				close(done)
			}
			return nil
		}
		ran := make(chan error)
		go func() { ran <- q.Run(ctx, 2, reconcile) }()
		q.Add("a")
		<-done
		synctest.Wait()
		if n := q.NumRequeues("a"); n != 0 {
			t.Fatalf("NumRequeues after success = %d, want 0 (Forget)", n)
		}
		cancel()
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
		want := []time.Duration{0, time.Second, 3 * time.Second} // backoff 1s, then 2s
		mu.Lock()
		defer mu.Unlock()
		if len(calls) != 3 || calls[0] != want[0] || calls[1] != want[1] || calls[2] != want[2] {
			t.Fatalf("reconcile called at %v, want %v", calls, want)
		}
		if !q.ShuttingDown() {
			t.Fatal("cancelling ctx did not shut the queue down")
		}
	})
}

func TestRunRejectsNoWorkers(t *testing.T) {
	q := workqueue.New(workqueue.Options[int]{})
	defer q.ShutDown()
	if err := q.Run(t.Context(), 0, func(context.Context, int) error { return nil }); err == nil {
		t.Fatal("Run with 0 workers = nil error")
	}
}

func TestRunReturnsWhenQueueShutDownElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[int]{})
		ran := make(chan error)
		go func() { ran <- q.Run(t.Context(), 3, func(context.Context, int) error { return nil }) }()
		synctest.Wait()
		q.ShutDown()
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
	})
}

// TestRunRequeuesAtThePriorityItGot: a key that fails is retried at the
// priority it was handed out with, so it overtakes keys of lower priority
// that were queued before its retry was.
func TestRunRequeuesAtThePriorityItGot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{
			RateLimiter: workqueue.NewExponentialRateLimiter[string](time.Second, time.Minute),
		})
		var mu sync.Mutex
		var order []string
		reconcile := func(_ context.Context, key string) error {
			mu.Lock()
			order = append(order, key)
			first := len(order) == 1
			mu.Unlock()
			if key == "h" && first {
				return errors.New("transient") // retried at 1s, at priority 5
			}
			if key != "h" {
				time.Sleep(2 * time.Second) // h's retry is queued while n1 runs
			}
			return nil
		}
		q.AddWithOpts(workqueue.AddOpts{Priority: 5}, "h")
		q.Add("n1")
		q.Add("n2")
		ctx, cancel := context.WithCancel(t.Context())
		ran := make(chan error)
		go func() { ran <- q.Run(ctx, 1, reconcile) }()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		cancel()
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []string{"h", "n1", "h", "n2"}; !slices.Equal(order, want) {
			t.Fatalf("reconciled %v, want %v", order, want)
		}
	})
}
