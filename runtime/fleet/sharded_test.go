package fleet_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/leasefake"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/shard"
)

const (
	shardGroup    = "fleet"
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
	// disengageTime is how long a recorder's Disengage takes (fake time):
	// stopping informers is not instant, and the exclusivity check must
	// hold while it runs.
	disengageTime = 300 * time.Millisecond
)

// staticProvider engages a fixed list of clusters and keeps the Engager,
// so that a test can re-engage (rotate) or disengage one later.
type staticProvider struct {
	names []string
	mu    sync.Mutex
	e     fleet.Engager
}

func (p *staticProvider) Run(ctx context.Context, e fleet.Engager) error {
	p.mu.Lock()
	p.e = e
	p.mu.Unlock()
	for _, n := range p.names {
		if err := e.Engage(n, fleet.Endpoint{}); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}

func (p *staticProvider) engager() fleet.Engager {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.e
}

// owners is the test's view of every replica's engaged clusters: it fails
// the test the moment a cluster is engaged by a replica while another still
// has it engaged (between Engage and the end of Disengage).
type owners struct {
	t       *testing.T
	mu      sync.Mutex
	by      map[string]string // cluster → replica
	engages map[string]int    // Engage calls per cluster
	// failNext: the next Engage of these clusters fails, as the fleet's
	// does for an Endpoint no client can be built from.
	failNext map[string]bool
}

func newOwners(t *testing.T) *owners {
	return &owners{t: t, by: map[string]string{}, engages: map[string]int{}, failNext: map[string]bool{}}
}

// recorder is one replica's Engager: it records in owners instead of
// running informers.
type recorder struct {
	o  *owners
	id string
}

func (r recorder) Engage(name string, _ fleet.Endpoint) error {
	r.o.mu.Lock()
	defer r.o.mu.Unlock()
	if r.o.failNext[name] {
		delete(r.o.failNext, name)
		return fmt.Errorf("injected: cannot engage %s", name)
	}
	if other, ok := r.o.by[name]; ok && other != r.id {
		r.o.t.Errorf("cluster %s engaged by %s while %s has it engaged", name, r.id, other)
	}
	r.o.by[name] = r.id
	r.o.engages[name]++
	return nil
}

func (r recorder) Disengage(name string) bool {
	time.Sleep(disengageTime)
	r.o.mu.Lock()
	defer r.o.mu.Unlock()
	if r.o.by[name] != r.id {
		r.o.t.Errorf("cluster %s disengaged by %s, engaged by %q", name, r.id, r.o.by[name])
		return false
	}
	delete(r.o.by, name)
	return true
}

// perReplica returns replica → its clusters, sorted.
func (o *owners) perReplica() map[string][]string {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := map[string][]string{}
	for c, r := range o.by {
		m[r] = append(m[r], c)
	}
	for _, cs := range m {
		slices.Sort(cs)
	}
	return m
}

func (o *owners) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.by)
}

// shardedReplica is one replica: a Sharded provider over its own shard,
// run against a recorder.
type shardedReplica struct {
	id     string
	inner  *staticProvider
	cancel context.CancelFunc
	done   chan error
}

func startReplica(t *testing.T, leases *leasefake.Leases, o *owners, id string, names []string) *shardedReplica {
	t.Helper()
	s, err := shard.New(shard.Options{
		Group: shardGroup, Identity: id, Leases: leases, Source: leases.Source,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
	})
	if err != nil {
		t.Fatal(err)
	}
	inner := &staticProvider{names: names}
	ctx, cancel := context.WithCancel(t.Context())
	r := &shardedReplica{id: id, inner: inner, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- fleet.Sharded(s, inner).Run(ctx, recorder{o, id}) }()
	return r
}

func (r *shardedReplica) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	if err := <-r.done; err != nil {
		t.Errorf("replica %s: Run: %v", r.id, err)
	}
}

func clusterNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("cluster-%02d", i)
	}
	return names
}

// waitAll waits (fake time) until every cluster of names is engaged by one
// of replicas, and returns how long that took.
func waitAll(t *testing.T, o *owners, n int, replicas ...string) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		per := o.perReplica()
		got := 0
		for _, id := range replicas {
			got += len(per[id])
		}
		if got == n && o.count() == n {
			return time.Since(start)
		}
		if time.Since(start) > 10*time.Minute {
			t.Fatalf("not every cluster engaged after %v: %v", time.Since(start), per)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestShardedSplitsClustersAcrossReplicas: 3 replicas over 30 clusters
// engage each cluster once between them, evenly enough (max/min ≤ 1.5),
// and never one cluster on two replicas at once.
func TestShardedSplitsClustersAcrossReplicas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		leases, o, names := leasefake.New(), newOwners(t), clusterNames(30)
		ids := []string{"replica-0", "replica-1", "replica-2"}
		var rs []*shardedReplica
		for _, id := range ids {
			rs = append(rs, startReplica(t, leases, o, id, names))
		}
		took := waitAll(t, o, len(names), ids...)
		// Settle: no cluster moves once the membership is stable.
		time.Sleep(2 * leaseDuration)
		per := o.perReplica()
		lo, hi := len(names), 0
		for _, id := range ids {
			lo, hi = min(lo, len(per[id])), max(hi, len(per[id]))
		}
		t.Logf("clusters per replica %v (every one engaged after %v of fake time)", lens(per), took)
		if lo == 0 || float64(hi)/float64(lo) > 1.5 {
			t.Errorf("clusters per replica %v: max/min %d/%d > 1.5", lens(per), hi, lo)
		}
		// A replica whose first handover completes before it has seen the
		// others' Leases engages more than its share for a moment; what
		// moves then moves without overlap (the recorder checks).
		if n := o.count(); n != len(names) {
			t.Errorf("%d clusters engaged; want %d", n, len(names))
		}
		for _, r := range rs {
			r.stop(t)
		}
		if n := o.count(); n != 0 {
			t.Errorf("%d clusters still engaged after every replica stopped", n)
		}
	})
}

func lens(m map[string][]string) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = len(v)
	}
	return out
}

// TestShardedHandoverOnJoinAndCleanStop: a replica that joins takes its
// share without overlap; one that stops releases its clusters (Disengage,
// then its Lease deleted) and the others take them at once, not after a
// lease duration.
func TestShardedHandoverOnJoinAndCleanStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		leases, o, names := leasefake.New(), newOwners(t), clusterNames(12)
		a := startReplica(t, leases, o, "a", names)
		waitAll(t, o, len(names), "a")
		b := startReplica(t, leases, o, "b", names)
		start := time.Now()
		for len(o.perReplica()["b"]) == 0 || o.count() != len(names) {
			if time.Since(start) > 10*time.Minute {
				t.Fatalf("b took nothing: %v", o.perReplica())
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("b joined and engaged %d clusters after %v", len(o.perReplica()["b"]), time.Since(start))

		start = time.Now()
		b.stop(t)
		took := waitAll(t, o, len(names), "a")
		t.Logf("b stopped: a engaged all %d clusters %v after b's Run returned", len(names), took)
		if total := time.Since(start); total >= leaseDuration {
			t.Errorf("clean stop: a took b's clusters after %v; want well within the lease duration %v (b deletes its Lease)", total, leaseDuration)
		}
		a.stop(t)
	})
}

// TestShardedHandoverWhenAReplicaDies: a replica dies (its Lease no longer
// renewed, no release). The others engage its clusters within one lease
// duration plus a handover, and never while it still holds them.
func TestShardedHandoverWhenAReplicaDies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		leases, o, names := leasefake.New(), newOwners(t), clusterNames(30)
		ids := []string{"r0", "r1", "r2"}
		rs := map[string]*shardedReplica{}
		for _, id := range ids {
			rs[id] = startReplica(t, leases, o, id, names)
		}
		waitAll(t, o, len(names), ids...)
		time.Sleep(2 * leaseDuration)
		lost := len(o.perReplica()["r1"])

		// Death: the Lease is not written any more (nor deleted), and the
		// process's clusters go with it.
		leases.SetFailing(shardGroup+"-r1", true)
		died := time.Now()
		rs["r1"].stop(t)
		took := waitAll(t, o, len(names), "r0", "r2")
		t.Logf("r1 died holding %d clusters; r0 and r2 engaged all %d after %v (lease duration %v)", lost, len(names), took, leaseDuration)
		if bound := leaseDuration + 2*retryPeriod; time.Since(died) > bound {
			t.Errorf("handover took %v; want at most the lease duration plus a handover (%v)", time.Since(died), bound)
		}
		rs["r0"].stop(t)
		rs["r2"].stop(t)
	})
}

// TestShardedPartitionedReplicaLetsGoFirst: a replica that cannot renew
// its Lease (partitioned from the home cluster) but lives on disengages
// every cluster at its renew deadline, before the others may take them
// (the recorder fails the test on any overlap); healed, it rejoins through
// a handover and gets its share back.
func TestShardedPartitionedReplicaLetsGoFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		leases, o, names := leasefake.New(), newOwners(t), clusterNames(20)
		a := startReplica(t, leases, o, "a", names)
		b := startReplica(t, leases, o, "b", names)
		waitAll(t, o, len(names), "a", "b")
		time.Sleep(2 * leaseDuration)
		before := o.perReplica()["b"]

		leases.SetFailing(shardGroup+"-b", true)
		cut := time.Now()
		for len(o.perReplica()["b"]) > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		released := time.Since(cut)
		waitAll(t, o, len(names), "a")
		t.Logf("partitioned b released its %d clusters after %v; a had all after %v", len(before), released, time.Since(cut))
		// The renew deadline counts from b's last successful write, made
		// before the cut; its clusters are disengaged in parallel.
		if released > renewDeadline+disengageTime {
			t.Errorf("b released its clusters %v after the cut; want by its renew deadline %v plus one Disengage (%v)", released, renewDeadline, disengageTime)
		}

		leases.SetFailing(shardGroup+"-b", false)
		for !slices.Equal(o.perReplica()["b"], before) || o.count() != len(names) {
			if time.Since(cut) > 10*time.Minute {
				t.Fatalf("healed b did not get its clusters back: %v", o.perReplica())
			}
			time.Sleep(100 * time.Millisecond)
		}
		a.stop(t)
		b.stop(t)
	})
}

// TestShardedFollowsTheProvider: a cluster the provider re-engages (a
// rotated kubeconfig) is re-engaged by its owner only; one it disengages
// is disengaged; one it adds is engaged by its owner.
func TestShardedFollowsTheProvider(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		leases, o, names := leasefake.New(), newOwners(t), clusterNames(8)
		a := startReplica(t, leases, o, "a", names)
		b := startReplica(t, leases, o, "b", names)
		waitAll(t, o, len(names), "a", "b")
		time.Sleep(2 * leaseDuration)
		o.mu.Lock()
		engaged := o.engages["cluster-03"] // 1, or 2 if it moved from a to b
		o.mu.Unlock()

		for _, r := range []*shardedReplica{a, b} {
			if err := r.inner.engager().Engage("cluster-03", fleet.Endpoint{}); err != nil {
				t.Fatal(err)
			}
			if !r.inner.engager().Disengage("cluster-05") {
				t.Errorf("%s: Disengage(cluster-05) = false; the provider had engaged it", r.id)
			}
			if err := r.inner.engager().Engage("cluster-new", fleet.Endpoint{}); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		o.mu.Lock()
		rotated := o.engages["cluster-03"]
		all := slices.Sorted(maps.Keys(o.by))
		o.mu.Unlock()
		if rotated != engaged+1 {
			t.Errorf("cluster-03 engaged %d times after its rotation, %d before; want once more (by its owner only)", rotated, engaged)
		}
		per := o.perReplica()
		if slices.Contains(all, "cluster-05") || !slices.Contains(all, "cluster-new") || len(all) != len(names) {
			t.Errorf("engaged %v (by replica %v); want cluster-05 gone and cluster-new engaged", all, per)
		}
		a.stop(t)
		b.stop(t)
	})
}

// TestShardedFleets: two replicas, each a real fleet over the same provided
// clusters, engage disjoint halves that together make the whole, and each
// engaged cluster syncs.
func TestShardedFleets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		leases, names := leasefake.New(), clusterNames(10)
		srcs := map[string]*runtimetest.Source[*lwt.Widget]{}
		for _, n := range names {
			srcs[n] = newSource(widget("ns", n+"-w", "n1"))
		}
		var fleets []*fleet.Fleet[*widgetFactory]
		var stops []func()
		for _, id := range []string{"a", "b"} {
			s, err := shard.New(shard.Options{
				Group: shardGroup, Identity: id, Leases: leases, Source: leases.Source,
				LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
			})
			if err != nil {
				t.Fatal(err)
			}
			fl := fleet.New(fleet.Options[*widgetFactory]{NewFactory: newWidgetFactory,
				Providers: []fleet.Provider{fleet.Sharded(s, providerFunc(func(ctx context.Context, e fleet.Engager) error {
					for _, n := range names {
						if err := e.Engage(n, over(srcs[n])); err != nil {
							return err
						}
					}
					<-ctx.Done()
					return nil
				}))}})
			fleet.Watch(fl, widgets, func(string) informer.Handler[*lwt.Widget] { return informer.HandlerFuncs[*lwt.Widget]{} }, informer.HandlerOptions{})
			_, stop := run(t, fl)
			fleets, stops = append(fleets, fl), append(stops, stop)
		}
		start := time.Now()
		for {
			a, b := fleets[0].Clusters(), fleets[1].Clusters()
			if len(a)+len(b) == len(names) && len(a) > 0 && len(b) > 0 {
				break
			}
			if time.Since(start) > 10*time.Minute {
				t.Fatalf("fleets hold %d and %d clusters; want %d between them", len(a), len(b), len(names))
			}
			time.Sleep(100 * time.Millisecond)
		}
		seen := map[string]bool{}
		for _, fl := range fleets {
			if err := fl.WaitForCacheSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			for _, c := range fl.Clusters() {
				if seen[c.Name()] {
					t.Errorf("cluster %s engaged by both fleets", c.Name())
				}
				seen[c.Name()] = true
				if _, ok := c.Factory().Widgets().Indexer().Get("ns/" + c.Name() + "-w"); !ok {
					t.Errorf("cluster %s: its Widget is not in its cache", c.Name())
				}
			}
		}
		for _, stop := range stops {
			stop()
		}
	})
}

type providerFunc func(ctx context.Context, e fleet.Engager) error

func (f providerFunc) Run(ctx context.Context, e fleet.Engager) error { return f(ctx, e) }

// TestShardedEngageFailure: the fleet's error engaging an owned cluster
// reaches the provider's Engage, the cluster stays disengaged (its shard
// reconcile ended: a handover does not wait for it), and the provider
// engaging it again retries.
func TestShardedEngageFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		leases, o := leasefake.New(), newOwners(t)
		a := startReplica(t, leases, o, "a", []string{"probe"})
		// Alone, a owns every name once its first handover is done.
		for o.count() != 1 {
			time.Sleep(100 * time.Millisecond)
		}
		o.mu.Lock()
		o.failNext["bad"] = true
		o.mu.Unlock()
		e := a.inner.engager()
		if err := e.Engage("bad", fleet.Endpoint{}); err == nil {
			t.Fatal("Engage(bad) = nil; want the fleet's error")
		}
		if _, ok := o.perReplicaFlat()["bad"]; ok {
			t.Fatal("bad is engaged after its Engage failed")
		}
		if err := e.Engage("bad", fleet.Endpoint{}); err != nil {
			t.Fatalf("Engage(bad) again = %v; want a retry that succeeds", err)
		}
		if _, ok := o.perReplicaFlat()["bad"]; !ok {
			t.Errorf("bad not engaged after the provider engaged it again: %v", o.perReplica())
		}
		a.stop(t)
	})
}

func (o *owners) perReplicaFlat() map[string]string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.by)
}
