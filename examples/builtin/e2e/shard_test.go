package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	apisharding "k8s.io/apiserver/pkg/sharding"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/shard"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"

	"github.com/informer-gen/informer-gen/examples/builtin/generated/informers"
	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"
)

// reconciles is the test's view of every replica's reconciles: it fails the
// test the moment two replicas reconcile one key at once, and remembers the
// last reconcile of every key (who, and which resourceVersion it read).
type reconciles struct {
	t      *testing.T
	mu     sync.Mutex
	active map[string]string
	last   map[string]reconcile
	count  map[string]int // per replica
}

type reconcile struct{ replica, rv string }

func (r *reconciles) enter(key, replica string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if other, busy := r.active[key]; busy {
		r.t.Errorf("key %s reconciled by %s while %s reconciles it", key, replica, other)
	}
	r.active[key] = replica
}

func (r *reconciles) exit(key, replica, rv string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active[key] == replica {
		delete(r.active, key)
	}
	r.last[key] = reconcile{replica, rv}
	r.count[replica]++
}

// replicaRules are what a replica of the sharded Pod controller may do:
// its membership on coordination.k8s.io/v1 Leases, and reading Pods.
var replicaRules = []rbacv1.PolicyRule{
	{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "delete"}},
	{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list", "watch"}},
}

// replica is one replica of a sharded Pod controller, running as an RBAC
// user of its own behind a proxy of its own (so that a test can partition
// it): a Shard on real Leases, a Pod informer (of its shard only when
// serverSide), a Filter, a workqueue and 4 workers.
type replica struct {
	id     string
	s      *shard.Shard
	inf    *informer.Informer[*corev1.Pod]
	proxy  *proxy
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// podCluster is the replicas of one run, by identity.
type podCluster struct {
	t          *testing.T
	ctx        context.Context
	ns         string
	serverSide bool
	rec        *reconciles
	users      map[string]*kubeapiserver.User
	replicas   map[string]*replica
}

func (c *podCluster) user(id string) *kubeapiserver.User {
	c.t.Helper()
	if u, ok := c.users[id]; ok {
		return u
	}
	u, err := server.NewUser(c.ctx, c.ns+"-"+id, kubeapiserver.Grant{Namespace: c.ns, Rules: replicaRules})
	if err != nil {
		c.t.Fatal(err)
	}
	c.users[id] = u
	return u
}

func (c *podCluster) start(id string) {
	t := c.t
	t.Helper()
	p := newProxy(t, c.user(id).Config)
	cfg := p.Config()
	lc, err := shard.NewRESTClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := shard.New(shard.Options{
		Group:         "pod-controller",
		Identity:      id,
		Leases:        shard.NewLeaseClient(lc, c.ns),
		Source:        shard.NewListerWatcher(lc, c.ns, "pod-controller"),
		LeaseDuration: 4 * time.Second, // a 2s margin over RenewDeadline: CI machines are loaded
		RenewDeadline: 2 * time.Second,
		RetryPeriod:   250 * time.Millisecond,
		ByUID:         c.serverSide,
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := factory.Options{Namespace: c.ns}
	if c.serverSide {
		opts.Tweak = s.Tweak
		opts.Reflector.Relist = s.RelistTrigger()
	}
	opts.Reflector.InitialBackoff = 50 * time.Millisecond
	opts.Reflector.MaxBackoff = 500 * time.Millisecond
	f := informers.NewSharedInformerFactory(cfg, opts)
	inf := f.Core().V1().Pods().Informer()
	q := workqueue.New(workqueue.Options[string]{Name: "pods-" + id})
	enqueue := func(p *corev1.Pod) { q.Add(store.Key(p)) }
	if _, err := inf.AddHandler(shard.Filter(s, informer.HandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, _ bool) { enqueue(p) },
		UpdateFunc: func(_, p *corev1.Pod) { enqueue(p) },
		DeleteFunc: func(p *corev1.Pod, _ bool) { enqueue(p) },
	}), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(c.ctx)
	r := &replica{id: id, s: s, inf: inf, proxy: p, cancel: cancel}
	r.wg.Go(func() { _ = s.Run(rctx) })
	r.wg.Go(func() {
		if c.serverSide {
			// The informer starts once the shard has its first assignment,
			// so that its first LIST is already of its shard.
			if err := informer.WaitForCacheSync(rctx, s); err != nil {
				return
			}
		}
		f.Start(rctx)
		<-rctx.Done()
		f.Shutdown()
	})
	r.wg.Go(func() {
		_ = q.Run(rctx, 4, s.Reconciler(func(ctx context.Context, key string) error {
			c.rec.enter(key, id)
			rv := ""
			if p, ok := inf.Indexer().Get(key); ok {
				rv = p.ResourceVersion
			}
			// Some work, so that a second reconciler would have a window
			// to overlap in.
			select {
			case <-time.After(2 * time.Millisecond):
			case <-ctx.Done():
			}
			c.rec.exit(key, id, rv)
			return nil
		}))
	})
	c.replicas[id] = r
}

func (c *podCluster) stop(id string) {
	r := c.replicas[id]
	r.cancel()
	r.wg.Wait()
	delete(c.replicas, id)
}

// converged checks that the live replicas (those in c.replicas) act on one
// membership, every Pod is owned by exactly one of them and was last
// reconciled by it at the server's resourceVersion, and, server-side, that
// each cache holds exactly the Pods its replica owns (its selector, parsed
// by the API server's own parser, selecting exactly them) and the caches
// together equal a fresh LIST.
func (c *podCluster) converged() error {
	var live []string
	for id := range c.replicas {
		live = append(live, id)
	}
	slices.Sort(live)
	for _, id := range live {
		if got := c.replicas[id].s.Members(); !slices.Equal(got, live) {
			return fmt.Errorf("%s acts on members %v, want %v", id, got, live)
		}
	}
	list, err := client.CoreV1().Pods(c.ns).List(c.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	union := map[string]string{}
	for id, r := range c.replicas {
		cached := map[string]string{}
		for _, p := range r.inf.Indexer().List() {
			cached[store.Key(p)] = p.ResourceVersion
			if c.serverSide && !r.s.OwnsUID(p.UID) {
				return fmt.Errorf("%s caches %s, which it does not own", id, store.Key(p))
			}
			union[store.Key(p)] = p.ResourceVersion
		}
		if !c.serverSide {
			// Client-side sharding: every replica caches everything.
			if err := sameRVs(id+"'s cache", cached, rvsOf(list.Items, func(p *corev1.Pod) metav1.Object { return p })); err != nil {
				return err
			}
			continue
		}
		if r.s.ServerIgnoresSelector() {
			c.t.Fatalf("%s believes the server ignores its selector; it does not", id)
		}
		sel, err := apisharding.Parse(r.s.Selector())
		if err != nil {
			return fmt.Errorf("%s: the API server cannot parse its selector %q: %w", id, r.s.Selector(), err)
		}
		for i := range list.Items {
			p := &list.Items[i]
			ok, err := sel.Matches(p)
			if err != nil {
				return err
			}
			if ok != r.s.OwnsUID(p.UID) {
				return fmt.Errorf("%s: its selector matches %s: %v, it owns it: %v", id, store.Key(p), ok, !ok)
			}
		}
	}
	if c.serverSide {
		if err := sameRVs("the replicas' caches together", union, rvsOf(list.Items, func(p *corev1.Pod) metav1.Object { return p })); err != nil {
			return err
		}
	}
	c.rec.mu.Lock()
	defer c.rec.mu.Unlock()
	for i := range list.Items {
		p := &list.Items[i]
		key := store.Key(p)
		var owners []string
		for id, r := range c.replicas {
			if r.s.Owns(key) {
				owners = append(owners, id)
			}
		}
		if len(owners) != 1 {
			return fmt.Errorf("pod %s owned by %v", key, owners)
		}
		if got := c.rec.last[key]; got.replica != owners[0] || got.rv != p.ResourceVersion {
			return fmt.Errorf("pod %s at resourceVersion %s, owned by %s: last reconciled by %q at %q", key, p.ResourceVersion, owners[0], got.replica, got.rv)
		}
	}
	return nil
}

func (c *podCluster) wait(what string) time.Duration {
	c.t.Helper()
	begin := time.Now()
	eventually(c.t, c.ctx, 2*time.Minute, what, c.converged)
	return time.Since(begin)
}

// actsOn waits until each of ids acts on the membership ids.
func (c *podCluster) actsOn(what string, ids ...string) time.Duration {
	c.t.Helper()
	begin := time.Now()
	slices.Sort(ids)
	eventually(c.t, c.ctx, 2*time.Minute, what, func() error {
		for _, id := range ids {
			if got := c.replicas[id].s.Members(); !slices.Equal(got, ids) {
				return fmt.Errorf("%s acts on %v", id, got)
			}
		}
		return nil
	})
	return time.Since(begin)
}

// touchAsync labels every Pod with gen meanwhile, so that events arrive
// while keys move; the returned func waits for it.
func (c *podCluster) touchAsync(n, gen int) (wait func()) {
	done := make(chan error, 1)
	go func() {
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{"gen":"%d"}}}`, gen)
		done <- parallel(c.ctx, 8, 0, n, func(i int) error {
			_, err := client.CoreV1().Pods(c.ns).Patch(c.ctx, fmt.Sprintf("pod-%d", i), types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		})
	}()
	return func() {
		c.t.Helper()
		if err := <-done; err != nil {
			c.t.Fatal(err)
		}
	}
}

// TestShardedPodController runs three replicas of a sharded Pod controller
// on real coordination.k8s.io/v1 Leases (validated, defaulted, each replica
// an RBAC user allowed only its Leases and reading Pods) and changes the
// membership under load: a replica is partitioned away and comes back, one
// leaves and another joins. Throughout, no Pod is reconciled by two
// replicas at once; after each change every Pod has been reconciled at its
// latest resourceVersion by its one owner. Client-side, every replica
// caches every Pod (Filter); server-side (ShardedListAndWatch, Options.ByUID),
// each caches exactly its own Pods and together they equal a fresh LIST.
func TestShardedPodController(t *testing.T) {
	for _, serverSide := range []bool{false, true} {
		name := "client-side"
		if serverSide {
			name = "server-side"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
			defer cancel()
			c := &podCluster{
				t: t, ctx: ctx, ns: namespace(t, "shard-"+name), serverSide: serverSide,
				rec:   &reconciles{t: t, active: map[string]string{}, last: map[string]reconcile{}, count: map[string]int{}},
				users: map[string]*kubeapiserver.User{}, replicas: map[string]*replica{},
			}
			defer func() {
				for id := range c.replicas {
					c.stop(id)
				}
			}()
			const n = 200
			if err := createPods(ctx, c.ns, 0, n); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"a", "b", "c", "d"} {
				c.user(id) // before any replica runs: NewUser waits for RBAC
			}
			for _, id := range []string{"a", "b", "c"} {
				c.start(id)
			}
			t.Logf("start: converged in %v", c.wait("three replicas reconcile every Pod"))

			// Partition c: it owns nothing once its renew deadline passed,
			// and a, b take its keys once its Lease expired.
			c.replicas["c"].proxy.SetDown(true)
			touched := c.touchAsync(n, 1)
			t.Logf("partition: a, b took over %v after c was cut off (LeaseDuration 4s)", c.actsOn("a, b act on [a b]", "a", "b"))
			if m := c.replicas["c"].s.Members(); m != nil {
				t.Errorf("partitioned c still acts on %v", m)
			}
			touched()
			cut := c.replicas["c"]
			delete(c.replicas, "c") // out of the checks while cut off
			t.Logf("partition: converged %v after the updates ended", c.wait("a, b reconcile every Pod"))
			c.replicas["c"] = cut
			cut.proxy.SetDown(false)
			t.Logf("heal: a, b, c act on [a b c] %v after the partition ended", c.actsOn("c rejoins", "a", "b", "c"))
			c.wait("a, b, c reconcile every Pod")

			// b leaves gracefully (its Lease is deleted) while the Pods
			// change; d joins while they still change.
			touched = c.touchAsync(n, 2)
			begin := time.Now()
			c.stop("b")
			stopped := time.Since(begin)
			c.actsOn("a, c act on [a c]", "a", "c")
			t.Logf("leave: b's Run returned after %v; a, c acted on [a c] %v after b began to stop", stopped, time.Since(begin))
			c.start("d")
			t.Logf("join: a, c, d act on [a c d] %v after d started", c.actsOn("a, c, d act on [a c d]", "a", "c", "d"))
			touched()
			c.wait("a, c, d reconcile every Pod")

			// The Leases are real coordination.k8s.io/v1 objects.
			leases, err := client.CoordinationV1().Leases(c.ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var holders []string
			for _, l := range leases.Items {
				if l.Spec.HolderIdentity != nil {
					holders = append(holders, *l.Spec.HolderIdentity)
				}
			}
			slices.Sort(holders)
			if !slices.Equal(holders, []string{"a", "c", "d"}) {
				t.Errorf("Leases held by %v, want [a c d] (b's deleted when it left)", holders)
			}
			c.rec.mu.Lock()
			t.Logf("reconciles per replica: %v", c.rec.count)
			c.rec.mu.Unlock()
		})
	}
}
