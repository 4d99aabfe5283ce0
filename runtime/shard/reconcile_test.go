package shard_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// Keys enqueued while owned and handed over before a worker took them are
// skipped by Reconciler (and forgotten by the queue); the keys still owned
// are reconciled.
func TestReconcilerSkipsKeysThatMovedWhileQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 200)
		defer c.stopAll()
		a := c.start("a", 0, 0)
		c.waitFor("a alone", time.Minute, c.converged)
		q := workqueue.New(workqueue.Options[string]{})
		for _, k := range c.keys {
			if !a.s.Owns(k) {
				t.Fatalf("a alone does not own %s", k)
			}
			q.Add(k)
		}
		c.start("b", 0, 0)
		c.waitFor("b joins", time.Minute, c.converged)

		var mu sync.Mutex
		got := map[string]bool{}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = q.Run(ctx, 2, a.s.Reconciler(func(_ context.Context, key string) error {
				mu.Lock()
				got[key] = true
				mu.Unlock()
				return nil
			}))
		}()
		synctest.Wait()
		cancel()
		<-done
		moved := 0
		for _, k := range c.keys {
			switch owned := a.s.Owns(k); {
			case owned && !got[k]:
				t.Errorf("a owns %s but did not reconcile it", k)
			case !owned && got[k]:
				t.Errorf("a reconciled %s, which moved to b while queued", k)
			case !owned:
				moved++
				if q.NumRequeues(k) != 0 {
					t.Errorf("skipped key %s not forgotten", k)
				}
			}
		}
		if moved == 0 {
			t.Error("no queued key moved to b")
		}
	})
}
