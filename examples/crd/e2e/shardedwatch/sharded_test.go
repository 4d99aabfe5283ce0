package shardedwatch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apisharding "k8s.io/apiserver/pkg/sharding"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/shard"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/memleases"
	"github.com/informer-gen/informer-gen/examples/crd/internal/parallel"
)

// reconciles fails the test the moment two replicas reconcile one key at
// once, and remembers the last reconcile of every key (as e2e/shard_test.go).
type reconciles struct {
	t      *testing.T
	mu     sync.Mutex
	active map[string]string
	last   map[string]reconcile
}

type reconcile struct{ replica, rv string }

func newReconciles(t *testing.T) *reconciles {
	return &reconciles{t: t, active: map[string]string{}, last: map[string]reconcile{}}
}

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
}

// replica is one replica of a sharded Foo controller: a Shard assigning by
// uid, a Foo informer (watching only its shard when serverSide), a Filter,
// a workqueue and 4 workers.
type replica struct {
	id  string
	s   *shard.Shard
	inf *informer.Informer[*samplev1.Foo]
	// received counts the bytes of the informer's responses (LIST and
	// WATCH bodies): what it decodes.
	received atomic.Int64
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func startReplica(t *testing.T, ctx context.Context, id, ns string, leases *memleases.Leases, serverSide bool, rec *reconciles) *replica {
	t.Helper()
	cfg := server.Config()
	cfg.QPS, cfg.Burst = -1, 0
	s, err := shard.New(shard.Options{
		Group:    "foo-controller",
		Identity: id,
		Leases:   leases.Client(ns),
		Source:   leases.Source(),
		// No replica here is partitioned or crashes, so LeaseDuration
		// costs nothing (joins and leaves are Lease round trips); it is
		// also how long a LIST or WATCH made with a replaced selector may
		// go on delivering before the shard concludes that the server
		// ignores shardSelector, and a LIST of every Foo took longer than
		// 4s on a loaded machine.
		LeaseDuration: 20 * time.Second,
		RenewDeadline: 10 * time.Second,
		RetryPeriod:   250 * time.Millisecond,
		ByUID:         serverSide,
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := factory.Options{Namespaces: []string{ns}}
	if serverSide {
		opts.Tweak = s.Tweak
		opts.Reflector.Relist = s.RelistTrigger()
	}
	opts.Reflector.InitialBackoff = 50 * time.Millisecond
	opts.Reflector.MaxBackoff = 500 * time.Millisecond
	r := &replica{id: id, s: s}
	icfg := rest.CopyConfig(cfg)
	icfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingRT{rt, &r.received} })
	f := informers.NewSharedInformerFactory(icfg, opts)
	inf := f.Samplecontroller().V1().Foos().Informer()
	r.inf = inf
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
	r.cancel = cancel
	r.wg.Go(func() { _ = s.Run(rctx) })
	// The informer starts once the shard has its first assignment, so
	// that its first LIST is already of its shard, not of everything.
	r.wg.Go(func() {
		if err := informer.WaitForCacheSync(rctx, s); err != nil {
			return
		}
		f.Start(rctx)
		<-rctx.Done()
		f.Shutdown()
	})
	r.wg.Go(func() {
		_ = q.Run(rctx, 4, s.Reconciler(func(ctx context.Context, key string) error {
			rec.enter(key, id)
			rv := ""
			if foo, ok := inf.Indexer().Get(key); ok {
				rv = foo.ResourceVersion
			}
			select {
			case <-time.After(2 * time.Millisecond):
			case <-ctx.Done():
			}
			rec.exit(key, id, rv)
			return nil
		}))
	})
	return r
}

func (r *replica) stop() { r.cancel(); r.wg.Wait() }

// countingRT counts the response body bytes read through it.
type countingRT struct {
	rt http.RoundTripper
	n  *atomic.Int64
}

func (c countingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(req)
	if err == nil {
		resp.Body = countingBody{resp.Body, c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// cluster is the replicas of one run, by identity, and the in-memory
// Leases of their membership (one Lease API per cluster: its Source serves
// every namespace).
type cluster struct {
	t        *testing.T
	ctx      context.Context
	ns       string
	server   bool
	rec      *reconciles
	leases   *memleases.Leases
	replicas map[string]*replica
}

func (c *cluster) start(id string) {
	if c.leases == nil {
		c.leases = memleases.New()
	}
	c.replicas[id] = startReplica(c.t, c.ctx, id, c.ns, c.leases, c.server, c.rec)
}

func (c *cluster) stop(id string) { c.replicas[id].stop(); delete(c.replicas, id) }

func (c *cluster) stopAll() {
	for id := range c.replicas {
		c.stop(id)
	}
}

// converged checks that the live replicas act on one membership, every Foo
// is owned by exactly one of them and was last reconciled by it at the
// server's resourceVersion, and (server-side) each cache holds exactly the
// Foos its replica owns, its selector parsed by the API server's own parser
// selecting exactly them.
func (c *cluster) converged() error {
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
	var list samplev1.FooList
	if err := client.Get().Namespace(c.ns).Resource("foos").Do(c.ctx).Into(&list); err != nil {
		return err
	}
	c.rec.mu.Lock()
	defer c.rec.mu.Unlock()
	cached := 0
	for id, r := range c.replicas {
		objs := r.inf.Indexer().List()
		cached += len(objs)
		if !c.server {
			continue
		}
		if r.s.ServerIgnoresSelector() {
			c.t.Fatalf("%s believes the server ignores its selector; it does not", id)
		}
		sel, err := apisharding.Parse(r.s.Selector())
		if err != nil {
			return fmt.Errorf("%s: the API server cannot parse its selector: %w", id, err)
		}
		for _, foo := range objs {
			if !r.s.OwnsUID(foo.UID) {
				return fmt.Errorf("%s caches %s, which it does not own", id, store.Key(foo))
			}
		}
		for i := range list.Items {
			foo := &list.Items[i]
			ok, err := sel.Matches(foo)
			if err != nil {
				return err
			}
			if ok != r.s.OwnsUID(foo.UID) {
				return fmt.Errorf("%s: its selector matches %s: %v; it owns it: %v", id, store.Key(foo), ok, !ok)
			}
		}
	}
	if want := len(list.Items); c.server && cached != want {
		return fmt.Errorf("caches hold %d Foos in all, want %d (disjoint shards)", cached, want)
	}
	for i := range list.Items {
		foo := &list.Items[i]
		key := store.Key(foo)
		var owners []string
		for id, r := range c.replicas {
			if r.s.Owns(key) {
				owners = append(owners, id)
			}
		}
		if len(owners) != 1 {
			return fmt.Errorf("key %s owned by %v", key, owners)
		}
		if got := c.rec.last[key]; got.replica != owners[0] || got.rv != foo.ResourceVersion {
			return fmt.Errorf("key %s at resourceVersion %s, owned by %s: last reconciled by %q at %q",
				key, foo.ResourceVersion, owners[0], got.replica, got.rv)
		}
	}
	return nil
}

func (c *cluster) wait(what string) time.Duration {
	c.t.Helper()
	begin := time.Now()
	e2eutil.Eventually(c.t, c.ctx, e2eutil.Patience, what, c.converged)
	return time.Since(begin)
}

func (c *cluster) sizes() map[string]int {
	out := map[string]int{}
	for id, r := range c.replicas {
		out[id] = len(r.inf.Indexer().List())
	}
	return out
}

// TestServerSideShardedController: three replicas whose Foo informers
// watch only their shard (shardSelector); each cache holds exactly its
// owned Foos (disjoint, adding up to all), every Foo is reconciled by its
// one owner, and a join and a leave under updates re-shard without any key
// reconciled by two replicas at once, the caches converging to exactly the
// owned Foos again.
func TestServerSideShardedController(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute) // minutes to spare on a busy machine
	defer cancel()
	const ns, n = "sharded", 300
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, n, nil); err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, ctx: ctx, ns: ns, server: true, rec: newReconciles(t), replicas: map[string]*replica{}}
	defer c.stopAll()
	for _, id := range []string{"a", "b", "c"} {
		c.start(id)
	}
	t.Logf("start: converged in %v; cache sizes %v", c.wait("three replicas"), c.sizes())

	touched := touchAsync(t, ctx, ns, n, 1)
	c.start("d")
	t.Logf("join of d: converged in %v; cache sizes %v", c.wait("join of d"), c.sizes())
	touched()
	touched = touchAsync(t, ctx, ns, n, 2)
	c.stop("b")
	touched()
	t.Logf("leave of b: converged in %v; cache sizes %v", c.wait("leave of b"), c.sizes())
}

// touchAsync sets spec.replicas of every Foo to gen meanwhile.
func touchAsync(t *testing.T, ctx context.Context, ns string, n int, gen int32) (wait func()) {
	done := make(chan error, 1)
	go func() {
		done <- parallel.Do(ctx, 8, 0, n, func(i int) error {
			for {
				var foo samplev1.Foo
				name := fmt.Sprintf("foo-%d", i)
				if err := client.Get().Namespace(ns).Resource("foos").Name(name).Do(ctx).Into(&foo); err != nil {
					return err
				}
				foo.Spec.Replicas = gen
				err := client.Put().Namespace(ns).Resource("foos").Name(name).Body(&foo).Do(ctx).Error()
				if err == nil || !isConflict(err) {
					return err
				}
			}
		})
	}()
	return func() {
		t.Helper()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestMeasureServerVsClientSide runs three replicas over the same Foos
// twice in one process, client-side sharding (every replica watches
// everything; assignment by key, today's behaviour) and server-side (each
// watches its shard), and logs per replica the cache size and the bytes its
// informer received (LIST and WATCH bodies: what it decodes), and the
// process CPU from start to converged (API server and etcd included: the
// replicas' heap and CPU cannot be told apart from the server's in one
// process). Indicative: the machine is shared. SHARDEDWATCH_FOOS sets the
// number of Foos (default 300).
func TestMeasureServerVsClientSide(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute) // minutes to spare on a busy machine
	defer cancel()
	n := 300
	if v, err := strconv.Atoi(os.Getenv("SHARDEDWATCH_FOOS")); err == nil && v > 0 {
		n = v
	}
	const ns = "measure"
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, n, nil); err != nil {
		t.Fatal(err)
	}
	gen := int32(10)
	for _, serverSide := range []bool{false, true} {
		mode := "client-side"
		if serverSide {
			mode = "server-side"
		}
		cpu0 := cpuTime()
		c := &cluster{t: t, ctx: ctx, ns: ns, server: serverSide, rec: newReconciles(t), replicas: map[string]*replica{}}
		for _, id := range []string{"a", "b", "c"} {
			c.start(id)
		}
		took := c.wait(mode + ": three replicas")
		cpu := cpuTime() - cpu0
		received := map[string]string{}
		for id, r := range c.replicas {
			received[id] = fmt.Sprintf("%.2f MiB", float64(r.received.Load())/(1<<20))
		}
		t.Logf("%s, %d Foos, 3 replicas: cache sizes %v; received %v; process CPU to converge %v (%v wall)",
			mode, n, c.sizes(), received, cpu.Round(time.Millisecond), took.Round(time.Millisecond))
		// Steady state: one update of every Foo, through the watches.
		for _, r := range c.replicas {
			r.received.Store(0)
		}
		cpu0 = cpuTime()
		gen++
		touchAsync(t, ctx, ns, n, gen)()
		c.wait(mode + ": after an update of every Foo")
		cpu = cpuTime() - cpu0
		for id, r := range c.replicas {
			received[id] = fmt.Sprintf("%.2f MiB", float64(r.received.Load())/(1<<20))
		}
		t.Logf("%s: an update of every Foo: received %v; process CPU %v", mode, received, cpu.Round(time.Millisecond))
		// The heap the replicas retain, as what stopping them frees (the
		// server's watchers for them go too: an upper bound).
		runtime.GC()
		var live, gone runtime.MemStats
		runtime.ReadMemStats(&live)
		c.stopAll()
		runtime.GC()
		runtime.ReadMemStats(&gone)
		t.Logf("%s: heap freed by stopping the 3 replicas: %.1f MiB (%.1f MiB per replica)", mode,
			float64(int64(live.HeapAlloc)-int64(gone.HeapAlloc))/(1<<20), float64(int64(live.HeapAlloc)-int64(gone.HeapAlloc))/3/(1<<20))
	}
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func isConflict(err error) bool { return apierrors.IsConflict(err) }
