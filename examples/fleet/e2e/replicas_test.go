package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/shard"

	"github.com/informer-gen/informer-gen/examples/fleet/controller"
)

// Lease timings for a busy machine (as examples/builtin's shard e2e): a
// renewal slower than RenewDeadline costs a replica its clusters and a
// handover.
const (
	leaseDuration = 12 * time.Second
	renewDeadline = 8 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

// clusterNames are the names the replicas split: 30 clusters, served by the
// four members, each cluster its own namespace of its member (a cluster's
// factory reads only that namespace), so each has its own objects.
func clusterNames() []string {
	names := make([]string, 30)
	for i := range names {
		names[i] = fmt.Sprintf("cluster-%02d", i)
	}
	return names
}

func memberOf(i int) *member { return members[i%len(members)] }

// staticClusters is the provider every replica runs under its Sharded
// wrapper: the 30 clusters, each over its member with its namespace.
type staticClusters struct{}

func (staticClusters) Run(ctx context.Context, e fleet.Engager) error {
	for i, name := range clusterNames() {
		err := e.Engage(name, fleet.Endpoint{Config: memberOf(i).srv.Config(), Options: func(o *factory.Options) {
			o.Namespaces = []string{name}
		}})
		if err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}

// holders is the test's view of which replica has each cluster engaged: it
// fails the test the moment a replica engages a cluster another one still
// has engaged.
type holders struct {
	t  *testing.T
	mu sync.Mutex
	by map[string]string
}

// recording wraps a replica's Sharded provider so that every Engage and
// Disengage it makes on the fleet is checked against holders.
type recording struct {
	inner fleet.Provider
	id    string
	h     *holders
}

func (r recording) Run(ctx context.Context, e fleet.Engager) error {
	return r.inner.Run(ctx, recorder{e, r})
}

type recorder struct {
	fleet.Engager
	r recording
}

func (rc recorder) Engage(name string, ep fleet.Endpoint) error {
	h := rc.r.h
	h.mu.Lock()
	if other, ok := h.by[name]; ok && other != rc.r.id {
		h.t.Errorf("cluster %s engaged by %s while %s has it engaged", name, rc.r.id, other)
	}
	h.by[name] = rc.r.id
	h.mu.Unlock()
	return rc.Engager.Engage(name, ep)
}

func (rc recorder) Disengage(name string) bool {
	ok := rc.Engager.Disengage(name) // returns once the cluster's informers stopped
	h := rc.r.h
	h.mu.Lock()
	if h.by[name] == rc.r.id {
		delete(h.by, name)
	}
	h.mu.Unlock()
	return ok
}

// cuttable is a replica's LeaseClient that a test can cut off, as a
// process that died (or lost the home cluster) would be: its Lease is
// neither renewed nor released, so the others wait for it to expire.
type cuttable struct {
	shard.LeaseClient
	cut atomic.Bool
}

func (c *cuttable) check() error {
	if c.cut.Load() {
		return apierrors.NewServiceUnavailable("cut off by the test")
	}
	return nil
}

func (c *cuttable) Create(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	return c.LeaseClient.Create(ctx, l)
}

func (c *cuttable) Update(ctx context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	return c.LeaseClient.Update(ctx, l)
}

func (c *cuttable) Delete(ctx context.Context, name, rv string) error {
	if err := c.check(); err != nil {
		return err
	}
	return c.LeaseClient.Delete(ctx, name, rv)
}

type fleetReplica struct {
	id     string
	s      *shard.Shard
	fl     *controller.Fleet
	leases *cuttable
	cancel context.CancelFunc
	done   chan struct{}
}

// TestReplicasSplitClusters: three replicas, each a fleet with the example
// controller and a Sharded provider on real Leases in the home cluster,
// split 30 clusters: each engaged by exactly one replica, max/min per
// replica ≤ 1.5, never one cluster on two replicas at once. One replica
// dies (its Lease neither renewed nor released, its fleet gone): the other
// two engage its clusters, and each cluster's cache equals its LIST on its
// new owner.
func TestReplicasSplitClusters(t *testing.T) {
	ctx := t.Context()
	names := clusterNames()
	for i, name := range names {
		for j := range 5 {
			if err := memberOf(i).create(ctx, name, fmt.Sprintf("foo-%d", j), int64(j), "h1"); err != nil {
				t.Fatal(err)
			}
		}
	}
	const group = "fleet-e2e"
	h := &holders{t: t, by: map[string]string{}}
	replicas := map[string]*fleetReplica{}
	ids := []string{"replica-0", "replica-1", "replica-2"}
	for _, id := range ids {
		lc, src, err := shard.NewLeases(home.Config(), nil, "default", group)
		if err != nil {
			t.Fatal(err)
		}
		leases := &cuttable{LeaseClient: lc}
		s, err := shard.New(shard.Options{Group: group, Identity: id, Leases: leases, Source: src,
			LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod})
		if err != nil {
			t.Fatal(err)
		}
		fl := controller.NewFleet(recording{inner: fleet.Sharded(s, staticClusters{}), id: id, h: h})
		ctl := controller.New(fl)
		rctx, cancel := context.WithCancel(ctx)
		r := &fleetReplica{id: id, s: s, fl: fl, leases: leases, cancel: cancel, done: make(chan struct{})}
		go func() {
			defer close(r.done)
			var wg sync.WaitGroup
			wg.Go(func() {
				if err := fl.Run(rctx); err != nil {
					t.Errorf("%s: fleet Run: %v", id, err)
				}
			})
			wg.Go(func() { _ = ctl.Run(rctx, 2) })
			wg.Wait()
		}()
		replicas[id] = r
	}
	defer func() {
		for _, r := range replicas {
			r.cancel()
			<-r.done
		}
	}()

	// split waits until the live replicas all act on a membership of all of
	// them, and every cluster is engaged and synced on exactly one, and
	// returns the clusters per replica.
	split := func(live []string) map[string]int {
		t.Helper()
		per := map[string]int{}
		eventually(t, ctx, 5*time.Minute, fmt.Sprintf("%v split the 30 clusters", live), func() error {
			clear(per)
			owner := map[string]string{}
			for _, id := range live {
				r := replicas[id]
				if m := r.s.Members(); !slices.Equal(m, live) {
					return fmt.Errorf("%s acts on membership %v", id, m)
				}
				for _, c := range r.fl.Clusters() {
					if other, ok := owner[c.Name()]; ok {
						return fmt.Errorf("cluster %s engaged by %s and %s", c.Name(), other, id)
					}
					if !c.HasSynced() {
						return fmt.Errorf("%s: cluster %s not synced (%v)", id, c.Name(), c.LastError())
					}
					owner[c.Name()] = id
					per[id]++
				}
			}
			if len(owner) != len(names) {
				return fmt.Errorf("%d of %d clusters engaged: %v", len(owner), len(names), per)
			}
			return nil
		})
		return maps.Clone(per)
	}

	per := split(ids)
	lo, hi := len(names), 0
	for _, id := range ids {
		lo, hi = min(lo, per[id]), max(hi, per[id])
	}
	t.Logf("clusters per replica: %v", per)
	if lo == 0 || float64(hi)/float64(lo) > 1.5 {
		t.Errorf("clusters per replica %v: max/min %d/%d > 1.5", per, hi, lo)
	}

	// replica-1 dies: its Lease is cut off first (neither renewed nor
	// deleted), then its fleet stops (its clusters go with the process).
	dead, held := replicas["replica-1"], per["replica-1"]
	dead.leases.cut.Store(true)
	died := time.Now()
	dead.cancel()
	<-dead.done
	delete(replicas, dead.id)
	per = split([]string{"replica-0", "replica-2"})
	t.Logf("replica-1 died holding %d clusters: replica-0 and replica-2 had all 30 engaged and synced %v later (lease duration %v): %v",
		held, time.Since(died).Round(time.Millisecond), leaseDuration, per)

	for i, name := range names {
		mb := memberOf(i)
		eventually(t, ctx, 3*time.Minute, name+": cache equals the LIST on its owner", func() error {
			list, err := mb.list(ctx, name)
			if err != nil {
				return err
			}
			for _, r := range replicas {
				if _, ok := r.fl.Cluster(name); ok {
					cache, err := cacheRVs(r.fl, name)
					if err != nil {
						return err
					}
					return same(name+" on "+r.id, cache, list)
				}
			}
			return fmt.Errorf("%s engaged by no replica", name)
		})
	}
}
