package shard_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/shard"
)

const group = "ctl"

// cluster runs replicas of one group over one fakeLeases, in a synctest
// bubble.
type cluster struct {
	t      *testing.T
	leases *fakeLeases
	keys   []string

	mu       sync.Mutex
	replicas map[string]*replica
	// active is the exclusivity check: which replica is reconciling each
	// key right now (between a successful Begin and its done).
	active map[string]string
	// reconciled counts reconciles per replica.
	reconciled map[string]int
}

type replica struct {
	id     string
	s      *shard.Shard
	cancel context.CancelFunc
	done   chan struct{}
}

func newCluster(t *testing.T, nkeys int) *cluster {
	c := &cluster{t: t, leases: newFakeLeases(), replicas: map[string]*replica{},
		active: map[string]string{}, reconciled: map[string]int{}}
	for i := range nkeys {
		c.keys = append(c.keys, fmt.Sprintf("ns/obj-%d", i))
	}
	return c
}

func (c *cluster) options(id string) shard.Options {
	return shard.Options{
		Group:         group,
		Identity:      id,
		Leases:        c.leases,
		Source:        c.leases.src,
		LeaseDuration: 15 * time.Second,
		RenewDeadline: 10 * time.Second,
		RetryPeriod:   2 * time.Second,
	}
}

// start runs replica id with workers that keep reconciling every key it
// owns (each reconcile takes reconcileTime of fake time) and asserts that
// no key is ever reconciled by two replicas at once.
func (c *cluster) start(id string, workers int, reconcileTime time.Duration) *replica {
	c.t.Helper()
	s, err := shard.New(c.options(id))
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(c.t.Context())
	r := &replica{id: id, s: s, cancel: cancel, done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := s.Run(ctx); err != nil {
			c.t.Errorf("%s: Run: %v", id, err)
		}
	})
	reconcile := s.Reconciler(func(ctx context.Context, key string) error {
		c.enter(key, id)
		defer c.exit(key, id)
		select {
		case <-time.After(reconcileTime):
		case <-ctx.Done():
		}
		return nil
	})
	for w := range workers {
		wg.Go(func() {
			// Worker w takes every workers-th key, so that one replica
			// never reconciles a key twice at once (a workqueue's
			// guarantee, which this test does not need a queue for).
			for ctx.Err() == nil {
				for i := w; i < len(c.keys) && ctx.Err() == nil; i += workers {
					_ = reconcile(ctx, c.keys[i])
				}
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		})
	}
	go func() { wg.Wait(); close(r.done) }()
	c.mu.Lock()
	c.replicas[id] = r
	c.mu.Unlock()
	return r
}

func (c *cluster) stop(id string) {
	c.mu.Lock()
	r := c.replicas[id]
	delete(c.replicas, id)
	c.mu.Unlock()
	r.cancel()
	<-r.done
}

func (c *cluster) stopAll() {
	c.mu.Lock()
	ids := make([]string, 0, len(c.replicas))
	for id := range c.replicas {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	for _, id := range ids {
		c.stop(id)
	}
}

func (c *cluster) enter(key, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if other, busy := c.active[key]; busy {
		c.t.Errorf("key %s reconciled by %s while %s reconciles it", key, id, other)
	}
	c.active[key] = id
	c.reconciled[id]++
}

func (c *cluster) exit(key, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active[key] == id {
		delete(c.active, key)
	}
}

// owners returns, for every key, the replicas whose Owns is true, and checks
// that there is at most one. The replicas run while it asks them one after
// another, so a handover may complete between two answers (the old owner
// answering before it, the new one after it): a key counts as owned by two
// at once only if both also answer true when asked again in the reverse
// order. (Fake time does not pass meanwhile, so the old owner cannot have
// lost the key and gained it back by a second handover.)
func (c *cluster) owners() map[string][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]string, 0, len(c.replicas))
	for id := range c.replicas {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := map[string][]string{}
	for _, k := range c.keys {
		for _, id := range ids {
			if c.replicas[id].s.Owns(k) {
				out[k] = append(out[k], id)
			}
		}
		if len(out[k]) > 1 {
			var again []string
			for _, id := range slices.Backward(out[k]) {
				if c.replicas[id].s.Owns(k) {
					again = append(again, id)
				}
			}
			if len(again) > 1 {
				c.t.Errorf("key %s owned by %v at once", k, again)
			}
		}
	}
	return out
}

// converged reports whether every key is owned by exactly one of the
// running replicas and all act on the membership of exactly those.
func (c *cluster) converged() error {
	owners := c.owners()
	c.mu.Lock()
	var ids []string
	for id := range c.replicas {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for id, r := range c.replicas {
		if got := r.s.Members(); !slices.Equal(got, ids) {
			c.mu.Unlock()
			return fmt.Errorf("%s acts on members %v, want %v", id, got, ids)
		}
	}
	c.mu.Unlock()
	for _, k := range c.keys {
		if len(owners[k]) != 1 {
			return fmt.Errorf("key %s owned by %v", k, owners[k])
		}
	}
	return nil
}

// waitFor samples cond every 100ms of fake time (checking exclusivity of
// Owns at every sample) until it holds; limit is a safety net.
func (c *cluster) waitFor(what string, limit time.Duration, cond func() error) time.Duration {
	c.t.Helper()
	start := time.Now()
	for {
		err := cond()
		if err == nil {
			return time.Since(start)
		}
		if time.Since(start) > limit {
			c.t.Fatalf("%s: not within %v of fake time: %v", what, limit, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestReplicasSplitKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 300)
		defer c.stopAll()
		for _, id := range []string{"a", "b", "c"} {
			c.start(id, 2, 50*time.Millisecond)
		}
		took := c.waitFor("three replicas converge", time.Minute, c.converged)
		t.Logf("converged after %v of fake time", took)
		counts := map[string]int{}
		for _, o := range c.owners() {
			counts[o[0]]++
		}
		for id, n := range counts {
			// 100 expected each; rendezvous over 300 keys stays well within.
			if n < 60 || n > 140 {
				t.Errorf("replica %s owns %d of 300 keys: unbalanced (%v)", id, n, counts)
			}
		}
		c.mu.Lock()
		for _, r := range c.replicas {
			if !r.s.HasSynced() {
				t.Errorf("%s: HasSynced false after convergence", r.id)
			}
		}
		c.mu.Unlock()
	})
}

func TestJoinAndLeaveWithoutOverlap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 200)
		defer c.stopAll()
		c.start("a", 3, 300*time.Millisecond)
		c.start("b", 3, 300*time.Millisecond)
		c.waitFor("a, b converge", time.Minute, c.converged)

		before := c.owners()
		writes := c.leases.writeCount()
		c.start("c", 3, 300*time.Millisecond)
		took := c.waitFor("c joins", time.Minute, c.converged)
		t.Logf("join handover took %v of fake time and %d Lease writes", took, c.leases.writeCount()-writes)
		// The acks are prompt writes, not renewals: a handover does not wait
		// for RetryPeriod (beyond the reconciles it waits for).
		if took >= c.options("c").RetryPeriod {
			t.Errorf("join handover took %v, not less than RetryPeriod", took)
		}
		moved := 0
		for k, o := range c.owners() {
			if o[0] != before[k][0] {
				moved++
				if o[0] != "c" {
					t.Errorf("key %s moved from %s to %s, not to the new replica", k, before[k][0], o[0])
				}
			}
		}
		if moved == 0 {
			t.Error("no key moved to the new replica")
		}

		// A graceful leave releases the Lease: the others need not wait
		// for it to expire.
		writes = c.leases.writeCount()
		c.stop("a")
		if _, ok := c.leases.src.Get("default/" + group + "-a"); ok {
			t.Error("a's Lease still exists after its Run returned")
		}
		took = c.waitFor("a leaves", time.Minute, c.converged)
		t.Logf("leave handover took %v of fake time and %d Lease writes", took, c.leases.writeCount()-writes)
		if took >= c.options("a").LeaseDuration {
			t.Errorf("takeover after a graceful leave took %v, not less than LeaseDuration", took)
		}
		// The handovers may complete without fake time passing: c's workers
		// get to its keys at their next round.
		c.waitFor("c reconciles", time.Minute, func() error {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.reconciled["c"] == 0 {
				return fmt.Errorf("c reconciled nothing")
			}
			return nil
		})
	})
}

// A renewal applied by the server whose response was lost leaves the
// replica with an older resourceVersion than the stored Lease's: releasing
// at Run's end must still delete the Lease (a real API server does this
// when ctx ends while a renewal is in flight), so the others need not wait
// for it to expire.
func TestReleaseAfterALostRenewal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 20)
		defer c.stopAll()
		c.start("a", 1, 100*time.Millisecond)
		c.start("b", 1, 100*time.Millisecond)
		c.waitFor("a, b converge", time.Minute, c.converged)
		c.leases.setLost(group+"-a", true)
		writes := c.leases.writeCount()
		time.Sleep(c.options("a").RetryPeriod)
		synctest.Wait()
		if c.leases.writeCount() == writes {
			t.Fatal("no renewal of a's Lease was applied")
		}
		if c.replicas["a"].s.LastError() == nil {
			t.Fatal("a: LastError nil after a renewal whose response was lost")
		}
		c.stop("a")
		if _, ok := c.leases.src.Get("default/" + group + "-a"); ok {
			t.Error("a's Lease still exists after its Run returned")
		}
	})
}

func TestRenewFailureGivesUpThenRejoins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 200)
		defer c.stopAll()
		c.start("a", 2, 100*time.Millisecond)
		c.start("b", 2, 100*time.Millisecond)
		// a and b first: c's reconciles run until their ctx is cancelled
		// (the renew deadline must cancel them), so a handover that takes
		// keys from c would wait for them. Started together, c may own
		// keys of a membership without a (a's Lease not yet seen) and then
		// hold up a's join for an hour; joining a converged a and b, c
		// gains its keys only in the membership of all three.
		c.waitFor("a, b converge", time.Minute, c.converged)
		rc := c.start("c", 2, time.Hour)
		c.waitFor("converge", time.Minute, c.converged)

		opts := c.options("c")
		c.leases.setFailing(group+"-c", true)
		failedAt := time.Now()
		// c must own nothing once RenewDeadline has passed since its last
		// successful renewal (at most RetryPeriod before failedAt).
		time.Sleep(opts.RenewDeadline)
		synctest.Wait()
		for _, k := range c.keys {
			if rc.s.Owns(k) {
				t.Fatalf("c still owns %s %v after its renewals began failing", k, time.Since(failedAt))
			}
		}
		if rc.s.LastError() == nil {
			t.Error("c: LastError nil while renewals fail")
		}
		c.mu.Lock()
		for k, id := range c.active {
			if id == "c" {
				t.Errorf("c still reconciles %s after the renew deadline: ctx not cancelled", k)
			}
		}
		c.mu.Unlock()
		// The others take c's keys once its Lease expired for them.
		c.waitFor("a, b take over", time.Minute, func() error {
			owners := c.owners()
			for _, k := range c.keys {
				if o := owners[k]; len(o) != 1 {
					return fmt.Errorf("key %s owned by %v", k, o)
				}
			}
			return nil
		})
		if since := time.Since(failedAt); since < opts.LeaseDuration-opts.RetryPeriod {
			t.Errorf("a, b took over %v after c's last renewal could have been, before its Lease expired", since)
		}

		// c heals and gets a share back through a handover.
		c.leases.setFailing(group+"-c", false)
		c.waitFor("c rejoins", time.Minute, c.converged)
	})
}

func TestRunTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 1)
		s, err := shard.New(c.options("a"))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- s.Run(ctx) }()
		synctest.Wait()
		if err := s.Run(ctx); err == nil {
			t.Error("second Run returned nil")
		}
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

func TestOptionsValidated(t *testing.T) {
	c := newCluster(t, 1)
	for name, edit := range map[string]func(*shard.Options){
		"no group":              func(o *shard.Options) { o.Group = "" },
		"no identity":           func(o *shard.Options) { o.Identity = "" },
		"no leases":             func(o *shard.Options) { o.Leases = nil },
		"no source":             func(o *shard.Options) { o.Source = nil },
		"deadline past lease":   func(o *shard.Options) { o.RenewDeadline = o.LeaseDuration },
		"retry past deadline":   func(o *shard.Options) { o.RetryPeriod = o.RenewDeadline },
		"lease below 1s":        func(o *shard.Options) { o.LeaseDuration = 500 * time.Millisecond },
		"negative retry period": func(o *shard.Options) { o.RetryPeriod = -time.Second },
		"identity not a name":   func(o *shard.Options) { o.Identity = "Pod_1" },
		"group too long":        func(o *shard.Options) { o.Group = strings.Repeat("g", 64) },
	} {
		o := c.options("a")
		edit(&o)
		if _, err := shard.New(o); err == nil {
			t.Errorf("%s: New accepted %+v", name, o)
		}
	}
	if _, err := shard.New(shard.Options{Group: "g", Identity: "a", Leases: c.leases, Source: c.leases.src}); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
}

// A Lease left by a replica that died is live for LeaseDuration from when
// this replica first saw it, whatever its renewTime says (no clock is
// trusted but one's own): the newcomer waits that long before it takes the
// dead replica's keys, then takes them all.
func TestStaleLeaseExpiresByObservation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, 100)
		defer c.stopAll()
		id, dur := "dead", int32(15)
		long := time.Now().Add(-time.Hour) // its renewTime: an hour ago, by its clock
		_, err := c.leases.Create(t.Context(), &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: group + "-dead", Labels: map[string]string{shard.GroupLabel: group},
				Annotations: map[string]string{"shard.informer-gen.dev/view": "0123456789abcdef"}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &id, LeaseDurationSeconds: &dur, RenewTime: ptrMicro(long)},
		})
		if err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		r := c.start("a", 1, 10*time.Millisecond)
		took := c.waitFor("a owns every key", time.Minute, c.converged)
		if took < 15*time.Second {
			t.Errorf("a took over after %v, before the dead replica's Lease expired by a's clock", took)
		}
		t.Logf("a took over %v after it started", time.Since(begin))
		if !r.s.HasSynced() {
			t.Error("HasSynced false")
		}
	})
}

func ptrMicro(t time.Time) *metav1.MicroTime { m := metav1.NewMicroTime(t); return &m }
