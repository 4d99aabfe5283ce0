package fleet

import (
	"context"
	"fmt"
	"sync"
)

// WaitForCacheSync blocks until every cluster engaged when it is called has
// synced or failed (not synced, with a LastError: a 403, an unreachable
// server, a set-up mistake), or ctx ends. It returns nil when every one
// synced; otherwise an error naming each cluster that did not, with its
// LastError (or ctx's error for one still syncing without an error), which
// errors.Is/As and apierrors.IsForbidden see through.
//
// A failed cluster does not hold the others back, and the others do not
// wait for this call: each cluster's handlers run and its listers answer
// as soon as that cluster has synced. A failed cluster keeps retrying; its
// own Cluster.WaitForCacheSync waits for it. Clusters engaged later, and
// replacements of a re-engaged cluster still syncing, are not waited for;
// a cluster disengaged during the wait is named as such.
func (f *Fleet[F]) WaitForCacheSync(ctx context.Context) error {
	cs := f.Clusters()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(func() { c.waitSettled(ctx) })
	}
	wg.Wait()
	var errs []error
	for _, c := range cs {
		if c.HasSynced() {
			continue
		}
		if err := c.LastError(); err != nil {
			errs = append(errs, err)
			continue
		}
		select {
		case <-c.done:
			errs = append(errs, fmt.Errorf("cluster %q: disengaged before it synced", c.name))
		default:
			errs = append(errs, fmt.Errorf("cluster %q: not synced: %w", c.name, context.Cause(ctx)))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("fleet: %d of %d clusters not synced: %w", len(errs), len(cs), joined(errs))
}
