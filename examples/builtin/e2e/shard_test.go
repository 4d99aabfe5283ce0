package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// podGroup is the shard group of the sharded Pod controller.
const podGroup = "pod-controller"

// replicaRules are what replica id of the sharded Pod controller may do,
// and no more: see the group's Leases and create its own (create cannot be
// limited by name), read, renew and delete its own Lease only (by name),
// and read Pods.
func replicaRules(id string) []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"list", "watch", "create"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "update", "delete"},
			ResourceNames: []string{podGroup + "-" + id}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list", "watch"}},
	}
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
	u, err := server.NewUser(c.ctx, c.ns+"-"+id, kubeapiserver.Grant{Namespace: c.ns, Rules: replicaRules(id)})
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
	leases, leaseSource, err := shard.NewLeases(cfg, nil, c.ns, podGroup)
	if err != nil {
		t.Fatal(err)
	}
	s, err := shard.New(shard.Options{
		Group:    podGroup,
		Identity: id,
		Leases:   leases,
		Source:   leaseSource,
		// Short, so that a partition or a crash costs seconds, and with
		// margins for a loaded machine: a renewal (a PUT through the API
		// server) that takes longer than RenewDeadline costs the replica
		// its keys and a handover, and a LIST or WATCH made with a
		// selector replaced more than LeaseDuration ago that still
		// delivers makes a replica conclude that the server ignores
		// shardSelector (Shard.ServerIgnoresSelector). With 4s/2s, at a
		// load average of 25 on 2 cores, handovers under updates took a
		// minute, and a server-side replica's cache went on holding a Pod
		// it did not own for minutes.
		LeaseDuration: 12 * time.Second,
		RenewDeadline: 8 * time.Second,
		RetryPeriod:   500 * time.Millisecond,
		ByUID:         c.serverSide,
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := factory.Options{Namespaces: []string{c.ns}}
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

// stop stops replica id gracefully: it releases (deletes) its Lease.
func (c *podCluster) stop(id string) {
	r := c.replicas[id]
	r.cancel()
	r.wg.Wait()
	delete(c.replicas, id)
}

// kill stops replica id as a crash would, as far as the API server can
// tell: its connections are cut first, so its Lease stays behind, renewed
// no more, and the others must wait for it to expire.
func (c *podCluster) kill(id string) {
	c.replicas[id].proxy.SetDown(true)
	c.stop(id)
}

// owners returns each Pod's owners (by assignment: by key client-side, by
// uid server-side), failing if a Pod has none or several.
func (c *podCluster) owners() (map[string]string, error) {
	list, err := client.CoreV1().Pods(c.ns).List(c.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(list.Items))
	for i := range list.Items {
		p := &list.Items[i]
		key := store.Key(p)
		var owners []string
		for id, r := range c.replicas {
			if (c.serverSide && r.s.OwnsUID(p.UID)) || (!c.serverSide && r.s.Owns(key)) {
				owners = append(owners, id)
			}
		}
		if len(owners) != 1 {
			return nil, fmt.Errorf("pod %s owned by %v", key, owners)
		}
		out[key] = owners[0]
	}
	return out, nil
}

// ownersNow waits until owners succeeds (every Pod has one owner by
// assignment) and returns them.
func (c *podCluster) ownersNow(what string) map[string]string {
	c.t.Helper()
	var got map[string]string
	eventually(c.t, c.ctx, 2*time.Minute, what, func() (err error) {
		got, err = c.owners()
		return err
	})
	return got
}

// rebalanced checks a membership change moved only what it must: every Pod
// whose owner changed from before to after was owned by left (when a
// member left) or is now owned by joined (when one joined), and every
// member owns some Pods. With exact false (assignment by uid: buckets by
// rendezvous hashing with bounded loads, docs/sharding.md), a few buckets
// may also move between members that stay, to keep the loads even: at most
// as many Pods as the minimal movement then.
func rebalanced(before, after map[string]string, left, joined string, exact bool, members ...string) (string, error) {
	var must, extra int
	share := map[string]int{}
	for key, now := range after {
		share[now]++
		was, ok := before[key]
		if !ok || was == now {
			continue
		}
		if was == left || now == joined {
			must++
			continue
		}
		extra++
		if exact {
			return "", fmt.Errorf("pod %s moved from %s to %s (left: %q, joined: %q)", key, was, now, left, joined)
		}
	}
	for _, id := range members {
		if share[id] == 0 {
			return "", fmt.Errorf("%s owns no Pod: %v", id, share)
		}
	}
	if must == 0 {
		return "", fmt.Errorf("no Pod moved (left: %q, joined: %q)", left, joined)
	}
	if extra > must {
		return "", fmt.Errorf("%d Pods moved between members that stay, more than the %d that had to move (left: %q, joined: %q)", extra, must, left, joined)
	}
	return fmt.Sprintf("%d Pods moved as they must, %d between members that stay; shares %v", must, extra, share), nil
}

// leaseHolders returns the holders of the group's Leases in c.ns, read by
// the admin.
func (c *podCluster) leaseHolders() ([]string, error) {
	leases, err := client.CoordinationV1().Leases(c.ns).List(c.ctx, metav1.ListOptions{LabelSelector: shard.GroupLabel + "=" + podGroup})
	if err != nil {
		return nil, err
	}
	var holders []string
	for _, l := range leases.Items {
		if l.Spec.HolderIdentity == nil {
			return nil, fmt.Errorf("lease %s has no holder", l.Name)
		}
		if want := podGroup + "-" + *l.Spec.HolderIdentity; l.Name != want {
			return nil, fmt.Errorf("lease %s is held by %s", l.Name, *l.Spec.HolderIdentity)
		}
		holders = append(holders, *l.Spec.HolderIdentity)
	}
	slices.Sort(holders)
	return holders, nil
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
		if c.serverSide && r.s.ServerIgnoresSelector() {
			// For good: its cache holds every Pod from now on.
			c.t.Fatalf("%s believes the server ignores its selector; it does not", id)
		}
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
	begin := time.Now()
	var took time.Duration
	go func() {
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{"gen":"%d"}}}`, gen)
		err := parallel(c.ctx, 8, 0, n, func(i int) error {
			for attempt := 1; ; attempt++ {
				_, err := client.CoreV1().Pods(c.ns).Patch(c.ctx, fmt.Sprintf("pod-%d", i), types.MergePatchType, patch, metav1.PatchOptions{})
				// An overloaded machine makes etcd time out ("etcdserver:
				// request timed out"); the patch is idempotent: again.
				if err == nil || attempt == 5 || !(apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err)) {
					return err
				}
			}
		})
		took = time.Since(begin)
		done <- err
	}()
	return func() {
		c.t.Helper()
		if err := <-done; err != nil {
			c.t.Fatal(err)
		}
		c.t.Logf("(the updates of %d Pods took %v)", n, took)
	}
}

// TestShardedPodController runs replicas of a sharded Pod controller on
// real coordination.k8s.io/v1 Leases (validated and defaulted by the API
// server; each replica an RBAC user whose Role lets it write its own Lease
// only, by name) and changes the membership under load: a replica is
// partitioned away (its Lease expires) and comes back, one leaves
// gracefully (its Lease deleted), one joins, one crashes (its Lease stays
// behind and expires) while Pods are deleted and created, and restarts
// under its identity, taking its old Lease over. Throughout, no Pod is
// reconciled by two replicas at once; after each change every Pod has one
// owner, was reconciled at its latest resourceVersion by it, and a leave
// moved only the leaver's Pods and a join only Pods to the joiner (by uid,
// server-side: at most as many others again, rebalanced). Client-side,
// every replica's cache equals a fresh LIST (Filter); server-side
// (ShardedListAndWatch, Options.ByUID), each cache holds exactly the Pods
// its replica owns, as its selector parsed by the API server's parser
// selects them, and together they equal a fresh LIST, each Pod once.
func TestShardedPodController(t *testing.T) {
	for _, serverSide := range []bool{false, true} {
		name := "client-side"
		if serverSide {
			name = "server-side"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
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
			t.Logf("partition: a, b took over %v after c was cut off (LeaseDuration 12s)", c.actsOn("a, b act on [a b]", "a", "b"))
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
			// change: only b's Pods move. d joins while they still change:
			// only Pods that move to d move.
			before := c.ownersNow("every Pod has one owner among a, b, c")
			touched = c.touchAsync(n, 2)
			begin := time.Now()
			c.stop("b")
			stopped := time.Since(begin)
			c.actsOn("a, c act on [a c]", "a", "c")
			t.Logf("leave: b's Run returned after %v; a, c acted on [a c] %v after b began to stop", stopped, time.Since(begin))
			after := c.ownersNow("every Pod has one owner among a, c")
			if moved, err := rebalanced(before, after, "b", "", !serverSide, "a", "c"); err != nil {
				t.Errorf("leave of b: %v", err)
			} else {
				t.Logf("leave: %s", moved)
			}
			c.start("d")
			t.Logf("join: a, c, d act on [a c d] %v after d started", c.actsOn("a, c, d act on [a c d]", "a", "c", "d"))
			if moved, err := rebalanced(after, c.ownersNow("every Pod has one owner among a, c, d"), "", "d", !serverSide, "a", "c", "d"); err != nil {
				t.Errorf("join of d: %v", err)
			} else {
				t.Logf("join: %s", moved)
			}
			touched()
			c.wait("a, c, d reconcile every Pod")

			// d crashes: its Lease stays, a and c take its Pods only once
			// it expired for them; meanwhile Pods are deleted and created.
			before = c.ownersNow("every Pod has one owner among a, c, d")
			begin = time.Now()
			c.kill("d")
			churned := make(chan error, 1)
			go func() {
				err := parallel(ctx, 8, 0, 20, func(i int) error {
					return client.CoreV1().Pods(c.ns).Delete(ctx, fmt.Sprintf("pod-%d", i), metav1.DeleteOptions{})
				})
				churned <- errors.Join(err, createPods(ctx, c.ns, n, n+20))
			}()
			t.Logf("crash: a, c act on [a c] %v after d's connections were cut (LeaseDuration 12s)", c.actsOn("a, c act on [a c]", "a", "c"))
			if err := <-churned; err != nil {
				t.Fatal(err)
			}
			if holders, err := c.leaseHolders(); err != nil || !slices.Equal(holders, []string{"a", "c", "d"}) {
				t.Errorf("after d crashed: Leases held by %v (%v), want [a c d]: a crash leaves its Lease behind", holders, err)
			}
			after = c.ownersNow("every Pod has one owner among a, c")
			if moved, err := rebalanced(before, after, "d", "", !serverSide, "a", "c"); err != nil {
				t.Errorf("crash of d: %v", err)
			} else {
				t.Logf("crash: %s", moved)
			}
			c.wait("a, c reconcile every Pod, 20 deleted and 20 created")

			// d restarts under its identity: it takes its old Lease over
			// (an update, not a create) and rejoins.
			old, err := client.CoordinationV1().Leases(c.ns).Get(ctx, podGroup+"-d", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			begin = time.Now()
			c.start("d")
			t.Logf("restart: a, c, d act on [a c d] %v after d restarted", c.actsOn("a, c, d act on [a c d]", "a", "c", "d"))
			c.wait("a, c, d reconcile every Pod")
			renewed, err := client.CoordinationV1().Leases(c.ns).Get(ctx, podGroup+"-d", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if renewed.UID != old.UID || !renewed.Spec.RenewTime.After(old.Spec.RenewTime.Time) {
				t.Errorf("restarted d's Lease: uid %s renewed at %v; before the restart uid %s renewed at %v: want the same Lease, renewed",
					renewed.UID, renewed.Spec.RenewTime, old.UID, old.Spec.RenewTime)
			}

			// The Leases are real coordination.k8s.io/v1 objects, as the
			// API server validated and defaulted them.
			if holders, err := c.leaseHolders(); err != nil || !slices.Equal(holders, []string{"a", "c", "d"}) {
				t.Errorf("Leases held by %v (%v), want [a c d] (b's deleted when it left)", holders, err)
			}
			c.rec.mu.Lock()
			t.Logf("reconciles per replica: %v", c.rec.count)
			c.rec.mu.Unlock()
		})
	}
}
