package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/shard"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/faultproxy"
	"github.com/informer-gen/informer-gen/examples/crd/internal/parallel"
)

// leaseCRD serves coordination.k8s.io/v1 Leases from the local API server,
// which has no coordination API of its own: a CRD of that group and kind,
// schemaless (the Lease's spec is kept as sent), so the sharding protocol
// runs on the real server's optimistic concurrency and watches. Groups
// ending in .k8s.io need the api-approved annotation.
func leaseCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "leases.coordination.k8s.io",
			Annotations: map[string]string{apiextensionsv1.KubeAPIApprovedAnnotation: "unapproved, test-only"},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "coordination.k8s.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "leases", Singular: "lease", Kind: "Lease", ListKind: "LeaseList",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:                   "object",
					XPreserveUnknownFields: &preserve,
				}},
			}},
		},
	}
}

var (
	leaseCRDOnce sync.Once
	shardRuns    atomic.Int32
)

func installLeaseCRD(t *testing.T, ctx context.Context) {
	t.Helper()
	var err error
	leaseCRDOnce.Do(func() { err = server.InstallCRDs(ctx, leaseCRD()) })
	if err != nil {
		t.Fatalf("installing the Lease CRD: %v", err)
	}
}

// reconciles is the test's view of every replica's reconciles: it fails the
// test the moment two replicas reconcile one key at once, and remembers the
// last reconcile of every key (who, and which resourceVersion it read).
type reconciles struct {
	t  *testing.T
	mu sync.Mutex
	// active: the replica reconciling each key now.
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

// shardReplica is one replica of a sharded Foo controller: a Shard, a Foo
// informer of its own with a Filter, a workqueue and 4 workers.
type shardReplica struct {
	id     string
	s      *shard.Shard
	proxy  *faultproxy.Proxy
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startShardReplica(t *testing.T, ctx context.Context, id, ns string, rec *reconciles) *shardReplica {
	t.Helper()
	// Everything of this replica goes through its own proxy, so a test can
	// partition it from the API server.
	p := newProxy(t, server.Config())
	cfg := p.Config()
	cfg.QPS, cfg.Burst = -1, 0
	lc, err := shard.NewRESTClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := shard.New(shard.Options{
		Group:         "foo-controller",
		Identity:      id,
		Leases:        shard.NewLeaseClient(lc, ns),
		Source:        shard.NewListerWatcher(lc, ns, "foo-controller"),
		LeaseDuration: 4 * time.Second, // a 2s margin over RenewDeadline: CI machines are loaded
		RenewDeadline: 2 * time.Second,
		RetryPeriod:   250 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	f, inf := fooInformer(t, cfg, ns, nil, nil)
	q := workqueue.New(workqueue.Options[string]{Name: "foos-" + id})
	enqueue := func(foo *samplev1.Foo) { q.Add(store.Key(foo)) }
	if _, err := inf.AddHandler(shard.Filter(s, informer.HandlerFuncs[*samplev1.Foo]{
		AddFunc:    func(foo *samplev1.Foo, _ bool) { enqueue(foo) },
		UpdateFunc: func(_, foo *samplev1.Foo) { enqueue(foo) },
		DeleteFunc: func(foo *samplev1.Foo, _ bool) { enqueue(foo) },
	}), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	r := &shardReplica{id: id, s: s, proxy: p, cancel: cancel}
	r.wg.Go(func() { _ = s.Run(rctx) })
	f.Start(rctx)
	r.wg.Go(func() {
		_ = q.Run(rctx, 4, s.Reconciler(func(ctx context.Context, key string) error {
			rec.enter(key, id)
			rv := ""
			if foo, ok := inf.Indexer().Get(key); ok {
				rv = foo.ResourceVersion
			}
			// Some work, so that a second reconciler would have a window
			// to overlap in.
			select {
			case <-time.After(2 * time.Millisecond):
			case <-ctx.Done():
			}
			rec.exit(key, id, rv)
			return nil
		}))
	})
	r.wg.Go(func() { <-rctx.Done(); f.Shutdown() })
	return r
}

func (r *shardReplica) stop() { r.cancel(); r.wg.Wait() }

// TestShardedController runs three replicas of a sharded Foo controller
// against the real API server (Leases served by a CRD) and changes the
// membership under load: a replica is partitioned away and comes back, one
// leaves and another joins. Throughout, no key is reconciled by two replicas
// at once; after each change, every Foo has been reconciled at its latest
// resourceVersion by its one owner.
func TestShardedController(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute) // minutes to spare on a busy machine
	defer cancel()
	installLeaseCRD(t, ctx)
	// A namespace per run, so that -count=N reruns in one server.
	ns := fmt.Sprintf("shard-%d", shardRuns.Add(1))
	const n = 300
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, n, nil); err != nil {
		t.Fatal(err)
	}
	rec := &reconciles{t: t, active: map[string]string{}, last: map[string]reconcile{}, count: map[string]int{}}
	replicas := map[string]*shardReplica{}
	defer func() {
		for _, r := range replicas {
			r.stop()
		}
	}()
	start := func(id string) { replicas[id] = startShardReplica(t, ctx, id, ns, rec) }
	stop := func(id string) { replicas[id].stop(); delete(replicas, id) }

	// converged: each Foo owned by exactly one of the live replicas, which
	// act on the same membership (live = not partitioned), and last
	// reconciled by that owner at the resourceVersion the server has now.
	converged := func(live ...string) func() error {
		return func() error {
			slices.Sort(live)
			for _, id := range live {
				if got := replicas[id].s.Members(); !slices.Equal(got, live) {
					return fmt.Errorf("%s acts on members %v, want %v", id, got, live)
				}
			}
			var list samplev1.FooList
			if err := client.Get().Namespace(ns).Resource("foos").Do(ctx).Into(&list); err != nil {
				return err
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			for _, foo := range list.Items {
				key := store.Key(&foo)
				var owners []string
				for id, r := range replicas {
					if r.s.Owns(key) {
						owners = append(owners, id)
					}
				}
				if len(owners) != 1 {
					return fmt.Errorf("key %s owned by %v", key, owners)
				}
				if got := rec.last[key]; got.replica != owners[0] || got.rv != foo.ResourceVersion {
					return fmt.Errorf("key %s at resourceVersion %s, owned by %s: last reconciled by %q at %q",
						key, foo.ResourceVersion, owners[0], got.replica, got.rv)
				}
			}
			return nil
		}
	}
	wait := func(what string, live ...string) time.Duration {
		t.Helper()
		begin := time.Now()
		e2eutil.Eventually(t, ctx, e2eutil.Patience, what, converged(live...))
		return time.Since(begin)
	}

	for _, id := range []string{"a", "b", "c"} {
		start(id)
	}
	took := wait("three replicas reconcile every Foo", "a", "b", "c")
	t.Logf("start: converged in %v", took)

	// actsOn waits until each of ids acts on the membership ids and
	// returns how long that took.
	actsOn := func(what string, ids ...string) time.Duration {
		t.Helper()
		begin := time.Now()
		slices.Sort(ids)
		e2eutil.Eventually(t, ctx, e2eutil.Patience, what, func() error {
			for _, id := range ids {
				if got := replicas[id].s.Members(); !slices.Equal(got, ids) {
					return fmt.Errorf("%s acts on %v", id, got)
				}
			}
			return nil
		})
		return time.Since(begin)
	}
	// touchAsync changes every Foo meanwhile, so that events arrive while
	// keys move.
	touchAsync := func(gen int) (wait func()) {
		done := make(chan error, 1)
		go func() { done <- updateFoos(ctx, client, ns, n, int32(gen)) }()
		return func() {
			t.Helper()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	}

	// Partition c: it owns nothing once its renew deadline passed, and a, b
	// take its keys once its Lease expired; changes meanwhile are theirs.
	replicas["c"].proxy.SetDown(true)
	touched := touchAsync(1)
	took = actsOn("a, b act on [a b]", "a", "b")
	t.Logf("partition: a, b took over %v after c was cut off (LeaseDuration 4s)", took)
	if m := replicas["c"].s.Members(); m != nil {
		t.Errorf("partitioned c still acts on %v", m)
	}
	touched()
	cut := replicas["c"]
	delete(replicas, "c") // out of the ownership check while cut off
	took = wait("a, b reconcile every Foo", "a", "b")
	t.Logf("partition: converged %v after the updates ended", took)
	replicas["c"] = cut
	cut.proxy.SetDown(false)
	took = actsOn("c rejoins", "a", "b", "c")
	t.Logf("heal: a, b, c act on [a b c] %v after the partition ended", took)
	wait("a, b, c reconcile every Foo", "a", "b", "c")

	// b leaves gracefully (its Lease is deleted) while the Foos change.
	touched = touchAsync(2)
	begin := time.Now()
	stop("b")
	stopped := time.Since(begin)
	actsOn("a, c act on [a c]", "a", "c")
	t.Logf("leave: b's Run returned after %v; a, c acted on [a c] %v after b began to stop", stopped, time.Since(begin))
	// d joins while the Foos still change.
	start("d")
	took = actsOn("a, c, d act on [a c d]", "a", "c", "d")
	t.Logf("join: a, c, d act on [a c d] %v after d started", took)
	touched()
	wait("a, c, d reconcile every Foo", "a", "c", "d")

	rec.mu.Lock()
	t.Logf("reconciles per replica: %v", rec.count)
	rec.mu.Unlock()
}

// updateFoos sets spec.replicas of foo-0..foo-(n-1) in ns to gen with 8
// parallel clients, retrying conflicts.
func updateFoos(ctx context.Context, c rest.Interface, ns string, n int, gen int32) error {
	return parallel.Do(ctx, 8, 0, n, func(i int) error {
		name := fmt.Sprintf("foo-%d", i)
		for {
			var foo samplev1.Foo
			if err := c.Get().Namespace(ns).Resource("foos").Name(name).Do(ctx).Into(&foo); err != nil {
				return err
			}
			foo.Spec.Replicas = gen
			err := c.Put().Namespace(ns).Resource("foos").Name(name).Body(&foo).Do(ctx).Error()
			if apierrors.IsConflict(err) {
				continue
			}
			if err != nil {
				return fmt.Errorf("update foo %s/%s: %w", ns, name, err)
			}
			return nil
		}
	})
}
