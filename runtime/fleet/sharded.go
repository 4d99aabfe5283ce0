package fleet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/shard"
)

// Sharded returns a Provider that engages, of the clusters inner provides,
// only those whose names s assigns to this replica: rendezvous hashing of
// cluster names over the live replicas of s's group, found through their
// Leases (runtime/shard). M replicas, each with a fleet and a Sharded
// provider over the same inner provider (the same kubeconfig Secrets in
// the home cluster), split N clusters between them; a replica that joins
// or leaves moves only the clusters it gains or loses.
//
// Run runs s (it must not be run elsewhere, and must not use
// shard.Options.ByUID: clusters are assigned by name) and inner, and
// engages and disengages clusters on the fleet as inner and the membership
// change: a cluster inner engages is engaged on the fleet while this
// replica owns its name; a cluster inner re-engages (a rotated
// kubeconfig) is re-engaged if owned; one inner disengages is disengaged.
// Engage and Disengage, as inner sees them, report on the clusters inner
// provides: Disengage reports whether inner had engaged the name, and
// Engage returns the fleet's error when the cluster is owned and engaging
// it failed. Both are serialized with the provider's own changes, so they
// may wait while clusters this replica lost are being disengaged.
//
// A cluster is engaged by one replica at a time. Each engaged cluster is
// held as one reconcile of s (shard.Shard.Begin on its name) for as long
// as it is engaged, so:
//
//   - Handover (a replica joins, or leaves by ending Run): the replica
//     that loses a cluster disengages it (Fleet.Disengage returns once the
//     cluster's informers have stopped) before its shard announces the new
//     membership, and the replica that gains it engages it only after every
//     live replica has announced that membership. The two never overlap.
//     Run's end disengages every cluster before s deletes its Lease, so
//     the others take over at once.
//   - A replica that cannot renew its Lease (partitioned from the home
//     cluster, stalled): it owns nothing from its renew deadline on
//     (shard.Options.RenewDeadline after the last successful renewal was
//     sent, by its own clock) and disengages every cluster then; the
//     others take its clusters LeaseDuration after they last saw its Lease
//     change. The bound: the two overlap only if disengaging takes longer
//     than LeaseDuration - RenewDeadline (5s with the defaults) after the
//     renew deadline, as when the process is frozen meanwhile. A replica
//     that dies holds nothing: the others engage its clusters after
//     LeaseDuration, plus a handover (one Lease write per replica), plus
//     the clusters' sync.
//
// A cluster whose engaging failed (Fleet.Engage's error: a rest.Config no
// client can be built from) is retried when inner engages it again.
func Sharded(s *shard.Shard, inner Provider) Provider {
	return &sharded{s: s, inner: inner}
}

type sharded struct {
	s     *shard.Shard
	inner Provider
}

// shardedRun is one Run of a Sharded provider.
type shardedRun struct {
	s    *shard.Shard
	e    Engager
	ctx  context.Context // Run's: the ctx of the reconciles held
	wake chan struct{}

	// mu serializes every change of the fleet made by this provider; the
	// fleet's Engage and Disengage run under it.
	mu      sync.Mutex
	known   map[string]*provided // what inner engaged, by name
	held    map[string]*holding  // what this replica engaged, by name
	gen     uint64
	stopped bool
}

// provided is a cluster as inner last engaged it.
type provided struct {
	ep  Endpoint
	gen uint64 // changes on every Engage of inner
	// failed is the gen whose engaging failed (0: none).
	failed uint64
}

// holding is a cluster this replica engaged, under one shard reconcile.
type holding struct {
	gen    uint64
	ctx    context.Context // cancelled when the shard takes the name away
	done   func()          // ends the reconcile: the shard may announce its loss
	unwake func() bool
}

func (p *sharded) Run(ctx context.Context, e Engager) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &shardedRun{s: p.s, e: e, ctx: ctx, wake: make(chan struct{}, 1),
		known: map[string]*provided{}, held: map[string]*holding{}}
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var errs []error
	fail := func(err error) {
		errMu.Lock()
		errs = append(errs, err)
		errMu.Unlock()
		cancel()
	}
	// The shard's Run, when ctx ends, waits for the reconciles held here
	// (at most RenewDeadline) before it deletes the Lease: the loop below
	// ends them once it has disengaged their clusters.
	wg.Go(func() {
		if err := p.s.Run(ctx); err != nil {
			fail(err)
		}
	})
	wg.Go(func() {
		if err := p.inner.Run(ctx, (*shardedEngager)(r)); err != nil && ctx.Err() == nil {
			fail(fmt.Errorf("provider %T: %w", p.inner, err))
		}
	})
	r.loop()
	wg.Wait()
	return errors.Join(errs...)
}

// loop reconciles the fleet with what inner provides and what the shard
// assigns, on every change of either, until ctx ends; then it disengages
// every cluster it engaged.
func (r *shardedRun) loop() {
	logger := klog.FromContext(r.ctx)
	for {
		changed := r.s.Changed() // before reading Owns: no change is missed
		r.mu.Lock()
		// Losses first, all at once: after a renew deadline every cluster
		// must be disengaged within LeaseDuration-RenewDeadline, however
		// many there are.
		var lost []string
		for name, h := range r.held {
			if _, ok := r.known[name]; !ok || !r.s.Owns(name) || h.ctx.Err() != nil {
				lost = append(lost, name)
			}
		}
		r.releaseLocked(lost)
		for name := range r.held {
			_ = r.syncLocked(name) // re-engages; logged
		}
		for name := range r.known {
			if _, ok := r.held[name]; !ok {
				_ = r.syncLocked(name)
			}
		}
		r.mu.Unlock()
		select {
		case <-r.ctx.Done():
			r.mu.Lock()
			r.stopped = true
			r.releaseLocked(slices.Collect(maps.Keys(r.held)))
			r.mu.Unlock()
			logger.V(2).Info("Sharded provider stopped: every cluster disengaged")
			return
		case <-changed:
		case <-r.wake:
		}
	}
}

// syncLocked brings cluster name's engagement in line: engaged when inner
// provides it and this replica owns it (and holds it in a shard
// reconcile), re-engaged when inner changed its Endpoint, disengaged
// otherwise. It returns the fleet's error engaging the cluster (logged
// too).
func (r *shardedRun) syncLocked(name string) error {
	want, ok := r.known[name]
	h, engaged := r.held[name]
	owned := ok && r.s.Owns(name)
	switch {
	case engaged && (!owned || h.ctx.Err() != nil):
		r.releaseLocked([]string{name})
	case engaged && want.gen != h.gen:
		h.gen = want.gen
		if err := r.e.Engage(name, want.ep); err != nil {
			want.failed = want.gen
			klog.FromContext(r.ctx).Error(err, "Sharded: re-engaging cluster failed", "cluster", name)
			return err
		}
	case !engaged && owned && want.failed != want.gen:
		ctx, done, ok := r.s.Begin(r.ctx, name)
		if !ok {
			return nil // lost between Owns and Begin: Changed wakes the loop
		}
		if err := r.e.Engage(name, want.ep); err != nil {
			done()
			want.failed = want.gen
			klog.FromContext(r.ctx).Error(err, "Sharded: engaging cluster failed", "cluster", name)
			return err
		}
		h := &holding{gen: want.gen, ctx: ctx, done: done}
		// The shard cancels ctx when the renew deadline passes or Run
		// stops: wake the loop to disengage.
		h.unwake = context.AfterFunc(ctx, func() { poke(r.wake) })
		r.held[name] = h
		klog.FromContext(r.ctx).V(2).Info("Sharded: engaged cluster", "cluster", name)
	}
	return nil
}

// releaseLocked disengages the held clusters names, in parallel, and ends
// the shard reconcile of each once it is disengaged: only then may the
// shard announce a membership that gives it to another replica.
func (r *shardedRun) releaseLocked(names []string) {
	var wg sync.WaitGroup
	for _, name := range names {
		h := r.held[name]
		delete(r.held, name)
		wg.Go(func() {
			h.unwake()
			r.e.Disengage(name)
			h.done()
		})
	}
	wg.Wait()
	if len(names) > 0 {
		klog.FromContext(r.ctx).V(2).Info("Sharded: released clusters", "clusters", names)
	}
}

// shardedEngager is the Engager inner sees.
type shardedEngager shardedRun

func (se *shardedEngager) Engage(name string, ep Endpoint) error {
	r := (*shardedRun)(se)
	if name == "" {
		return errors.New("fleet: engage: empty cluster name")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return ErrStopped
	}
	r.gen++
	want := r.known[name]
	if want == nil {
		want = &provided{}
		r.known[name] = want
	}
	want.ep, want.gen = ep, r.gen
	return r.syncLocked(name)
}

func (se *shardedEngager) Disengage(name string) bool {
	r := (*shardedRun)(se)
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.known[name]
	delete(r.known, name)
	if !r.stopped {
		_ = r.syncLocked(name) // a release: no error
	}
	return ok
}

// poke sends on a wake channel of capacity 1 without blocking.
func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
