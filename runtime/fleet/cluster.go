package fleet

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/informer-gen/informer-gen/runtime/informer"
)

// Cluster is one engaged cluster: its name and its factory. Safe for
// concurrent use. A *Cluster stays usable after its cluster is disengaged
// or replaced (reads return the last state and never change again); the
// fleet no longer holds it then.
type Cluster[F Factory] struct {
	name       string
	factory    F
	httpClient *http.Client // built by the fleet for this cluster, or nil
	conns      *conns       // httpClient's connections, or nil

	mu      sync.Mutex
	errs    chan struct{} // closed and replaced on every list/watch error
	cancel  func()        // set by start
	stopped bool
	done    chan struct{} // closed by stop
	running chan struct{} // closed by start, after Engage registered the Watches
	setup   []error       // Watch registrations that failed
	// replays are the Watch handlers' replays, run once the cluster
	// replaces another (Fleet.swapWhenSettled).
	replays []func()
}

// Name is the cluster's name, as its provider engaged it: the Cluster field
// of its Keys.
func (c *Cluster[F]) Name() string { return c.name }

// Factory is the cluster's factory: its typed accessors give the
// cluster's informers and listers (c.Factory().Samplecontroller().V1alpha1().Foos().Lister()).
func (c *Cluster[F]) Factory() F { return c.factory }

// HasSynced reports whether the cluster runs (its Watches registered, its
// factory started) and every informer of its factory has synced (true for
// a running factory with no informer).
func (c *Cluster[F]) HasSynced() bool {
	select {
	case <-c.running:
	default:
		return false
	}
	for _, g := range c.factory.Informers() {
		if !g.Informer().HasSynced() {
			return false
		}
	}
	return true
}

// LastError returns an error naming the cluster and every informer of it
// whose last list or watch failed (a 403, an unreachable server; see
// informer.Informer.LastError), or a handler registration Watch could not
// make; nil when none has. A cluster that has not synced and has a
// LastError has failed, for Fleet.WaitForCacheSync; it keeps retrying and
// may sync later.
func (c *Cluster[F]) LastError() error {
	var errs []error
	c.mu.Lock()
	errs = append(errs, c.setup...)
	c.mu.Unlock()
	for _, g := range c.factory.Informers() {
		if err := g.Informer().LastError(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", g.Informer().Name(), err))
		}
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("cluster %q: %w", c.name, errs[0])
	}
	return fmt.Errorf("cluster %q: %w", c.name, joined(errs))
}

// WaitForCacheSync waits for this cluster alone: until every informer of
// its factory has synced (nil) or ctx ends (an error naming the unsynced
// informers and their last errors; see factory.Factory.WaitForCacheSync).
// Other clusters do not matter to it.
func (c *Cluster[F]) WaitForCacheSync(ctx context.Context) error {
	if err := c.factory.WaitForCacheSync(ctx); err != nil {
		return fmt.Errorf("cluster %q: %w", c.name, err)
	}
	return nil
}

// start runs the cluster's factory with a context of its own, derived from
// ctx.
func (c *Cluster[F]) start(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.cancel != nil {
		return
	}
	ctx, c.cancel = context.WithCancel(ctx)
	c.factory.Start(ctx)
	close(c.running)
}

// stop stops the cluster's informers and waits for their goroutines;
// then it closes the connections of the HTTP client the fleet built for
// the cluster, idle or not (its informers were their only users), so the
// transport's goroutines end and nothing but the caller's references keeps
// the cluster's memory.
func (c *Cluster[F]) stop() {
	c.mu.Lock()
	if !c.stopped {
		close(c.done)
	}
	c.stopped = true
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	c.factory.Shutdown()
	closeIdle(c.httpClient)
	if c.conns != nil {
		c.conns.closeAll()
	}
}

// onSwap adds fn to what runs once the cluster has replaced another.
func (c *Cluster[F]) onSwap(fn func()) {
	c.mu.Lock()
	c.replays = append(c.replays, fn)
	c.mu.Unlock()
}

// swapped runs what onSwap added, in order.
func (c *Cluster[F]) swapped() {
	c.mu.Lock()
	fns := c.replays
	c.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// reportError wakes waiters: a list or watch of the cluster failed.
func (c *Cluster[F]) reportError() {
	c.mu.Lock()
	close(c.errs)
	c.errs = make(chan struct{})
	c.mu.Unlock()
}

func (c *Cluster[F]) setupError(err error) {
	c.mu.Lock()
	c.setup = append(c.setup, err)
	c.mu.Unlock()
	c.reportError()
}

// errChan returns the channel the next error report closes.
func (c *Cluster[F]) errChan() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errs
}

// settled is true when the cluster has synced or failed.
func (c *Cluster[F]) settled() bool {
	return c.HasSynced() || c.LastError() != nil
}

// waitSettled blocks until the cluster has synced or failed (true), or ctx
// ends, or the cluster is stopped (false). It waits on the informers' Synced channels and the error
// hook's reports, re-reading the informers each round (a Watch may add one).
func (c *Cluster[F]) waitSettled(ctx context.Context) bool {
	select {
	case <-c.running:
	case <-c.done:
		return false
	case <-ctx.Done():
		return c.settled()
	}
	for {
		errs := c.errChan() // before the check, so no report is missed
		if c.settled() {
			return true
		}
		var syncs []informer.Syncable
		for _, g := range c.factory.Informers() {
			syncs = append(syncs, g.Informer())
		}
		wctx, cancel := context.WithCancel(ctx)
		synced := make(chan struct{})
		go func() {
			defer close(synced)
			_ = informer.WaitForCacheSync(wctx, syncs...)
		}()
		stopped := false
		select {
		case <-synced:
		case <-errs:
		case <-ctx.Done():
		case <-c.done:
			stopped = true
		}
		cancel()
		<-synced
		if stopped {
			return false
		}
		if ctx.Err() != nil {
			return c.settled()
		}
	}
}
