package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	fooinformers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/faultproxy"
	"github.com/informer-gen/informer-gen/examples/crd/internal/verify"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
)

// chaosDuration is how long faults are injected; with the server start and
// the convergence check the test takes about a minute (55-60s).
const chaosDuration = 50 * time.Second

// TestChaos runs writers churning Foos in three namespaces while seeded
// random faults hit the informers' connections through the fault proxy: API
// server restarts, etcd compaction with cut watches (410), cuts, stalls,
// 429/500/403 answers, undecodable events, bytes that break a watch's
// framing, watches cut in the middle of an event, and a hostile server's
// shapes (stale-rv, bogus-rv, blank-names: see applyFault). Then, with the faults
// and writers stopped, the cache of an all-namespaces informer and of a
// two-namespace informer must equal a fresh LIST, and so must what each of
// their handlers last saw; once the factories are shut down no goroutine of
// the runtime is left. CHAOS_SEED=n replays a run.
func TestChaos(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CHAOS_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("CHAOS_SEED=%q: %v", s, err)
		}
	}
	t.Logf("chaos seed %d", seed)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("FAILED with chaos seed %d: rerun with CHAOS_SEED=%d", seed, seed)
		}
	})
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	// Namespaces of this run only, so that runs can repeat (-count).
	var chaosNamespaces []string
	for _, s := range []string{"a", "b", "c"} {
		chaosNamespaces = append(chaosNamespaces, fmt.Sprintf("chaos-%d-%s", seed%100000, s))
	}
	start := time.Now()
	srv, c := startNoCacheServer(t)
	ctx := t.Context()
	for _, ns := range chaosNamespaces {
		if err := e2eutil.CreateFoos(ctx, c, ns, "seed", 0, 50, nil); err != nil {
			t.Fatal(err)
		}
	}
	still := stillFoo(t, ctx, c, chaosNamespaces[0]) // the object of the hostile events
	p := newProxy(t, srv.Config())

	all := newChaosInformer(t, p.Config(), factory.Options{})
	multi := newChaosInformer(t, p.Config(), factory.Options{Types: []factory.TypeOverride{
		factory.TypeOptions[*samplev1.Foo]{Type: fooinformers.FooType, Namespaces: chaosNamespaces[:2]},
	}})
	runCtx, stopInformers := context.WithCancel(ctx)
	defer stopInformers()
	for _, ci := range []*chaosInformer{all, multi} {
		syncFactory(t, runCtx, ci.f)
	}

	// Writers: create, patch and delete Foos straight at the server.
	writeCtx, stopWriters := context.WithCancel(ctx)
	var writers sync.WaitGroup
	var writes atomicCounter
	for n, ns := range chaosNamespaces {
		wrng := rand.New(rand.NewPCG(seed+uint64(n)+1, 7))
		writers.Go(func() { churn(writeCtx, c, ns, wrng, &writes) })
	}

	faults := map[string]int{}
	deadline := time.Now().Add(chaosDuration)
	for time.Now().Before(deadline) {
		name := injectFault(t, ctx, rng, srv, p, still)
		faults[name]++
		sleep(ctx, time.Duration(200+rng.IntN(1000))*time.Millisecond)
	}
	stopWriters()
	writers.Wait()
	faultsStopped := time.Now()
	t.Logf("%d writes, faults %v", writes.get(), faults)
	// Three streams (one all-namespaces, two namespaces): however the
	// faults went, hostile ones included, their LIST and WATCH requests per
	// second stay bounded. Generous: cuts and restarts legitimately make
	// every stream reconnect at once.
	requests := 0
	for _, r := range p.Requests() {
		if isFoos(r) {
			requests++
		}
	}
	rate := float64(requests) / faultsStopped.Sub(start).Seconds()
	t.Logf("%d LIST and WATCH requests, %.1f/s", requests, rate)
	if rate > 10 {
		t.Errorf("%.1f LIST and WATCH requests per second for three streams, want at most 10", rate)
	}

	for _, tc := range []struct {
		name string
		ci   *chaosInformer
		nss  []string
	}{{"all namespaces", all, nil}, {"two namespaces", multi, chaosNamespaces[:2]}} {
		e2eutil.Eventually(t, ctx, e2eutil.Patience, tc.name+": cache and handler equal a fresh LIST", func() error {
			listed, err := listFoos(ctx, c, tc.nss)
			if err != nil {
				return err
			}
			if err := verify.CacheEqualsList("Foo", tc.ci.inf.Indexer().List(), listed); err != nil {
				return fmt.Errorf("cache: %w", err)
			}
			if err := verify.CacheEqualsList("Foo", tc.ci.seen.list(), listed); err != nil {
				return fmt.Errorf("handler's last-seen state: %w", err)
			}
			return nil
		})
		t.Logf("%s: equal to a fresh LIST %v after the faults stopped (last error: %v)", tc.name, time.Since(faultsStopped).Round(time.Millisecond), tc.ci.inf.LastError())
	}

	stopInformers()
	for _, ci := range []*chaosInformer{all, multi} {
		ci.f.Shutdown()
	}
	// Shutdown returns once every goroutine it started has finished its
	// work (a watch's reader has closed its channel); one may still be in
	// its last instructions, so a stack dump may show it for a moment. A
	// leaked one stays.
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "no goroutine of the runtime left after Shutdown", func() error {
		if leaked := runtimeGoroutines(); leaked != "" {
			return fmt.Errorf("still running:\n%s", leaked)
		}
		return nil
	})
	t.Logf("chaos test took %v", time.Since(start).Round(time.Second))
}

type chaosInformer struct {
	f    *informers.SharedInformerFactory
	inf  *informer.Informer[*samplev1.Foo]
	seen *lastSeen
}

func newChaosInformer(t *testing.T, cfg *rest.Config, opts factory.Options) *chaosInformer {
	t.Helper()
	f := informers.NewSharedInformerFactory(cfg, opts)
	t.Cleanup(f.Shutdown)
	inf := f.Samplecontroller().V1().Foos().Informer()
	seen := &lastSeen{objs: map[string]*samplev1.Foo{}}
	if _, err := inf.AddHandler(seen, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	return &chaosInformer{f: f, inf: inf, seen: seen}
}

// lastSeen is a handler that keeps the last state it was told of each Foo.
type lastSeen struct {
	mu   sync.Mutex
	objs map[string]*samplev1.Foo
}

func (l *lastSeen) OnAdd(o *samplev1.Foo, _ bool) { l.set(o) }
func (l *lastSeen) OnUpdate(_, o *samplev1.Foo)   { l.set(o) }
func (l *lastSeen) OnDelete(o *samplev1.Foo, _ bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.objs, o.Namespace+"/"+o.Name)
}

func (l *lastSeen) set(o *samplev1.Foo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.objs[o.Namespace+"/"+o.Name] = o
}

func (l *lastSeen) list() []*samplev1.Foo {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*samplev1.Foo, 0, len(l.objs))
	for _, o := range l.objs {
		out = append(out, o)
	}
	return out
}

func listFoos(ctx context.Context, c rest.Interface, nss []string) ([]*samplev1.Foo, error) {
	if nss == nil {
		l, _, err := verify.ListFoos(ctx, c, "", "")
		return l, err
	}
	var out []*samplev1.Foo
	for _, ns := range nss {
		l, _, err := verify.ListFoos(ctx, c, ns, "")
		if err != nil {
			return nil, err
		}
		out = append(out, l...)
	}
	return out, nil
}

type atomicCounter struct {
	mu sync.Mutex
	n  int
}

func (a *atomicCounter) inc() { a.mu.Lock(); a.n++; a.mu.Unlock() }
func (a *atomicCounter) get() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// churn creates, patches and deletes Foos in ns until ctx ends; errors (the
// API server restarting) are ignored.
func churn(ctx context.Context, c rest.Interface, ns string, rng *rand.Rand, writes *atomicCounter) {
	var names []string
	for i := range 50 {
		names = append(names, fmt.Sprintf("seed-%d", i))
	}
	next := 0
	for ctx.Err() == nil {
		var err error
		switch op := rng.IntN(10); {
		case op < 3 || len(names) < 10:
			name := fmt.Sprintf("churn-%d", next)
			next++
			err = c.Post().Namespace(ns).Resource("foos").Body(e2eutil.Foo(ns, name, "", int32(rng.IntN(5)))).Do(ctx).Error()
			if err == nil {
				names = append(names, name)
			}
		case op < 8:
			name := names[rng.IntN(len(names))]
			patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, rng.IntN(100))
			err = c.Patch(types.MergePatchType).Namespace(ns).Resource("foos").Name(name).Body([]byte(patch)).Do(ctx).Error()
		default:
			i := rng.IntN(len(names))
			err = e2eutil.DeleteFoo(ctx, c, ns, names[i])
			if err == nil {
				names = append(names[:i], names[i+1:]...)
			}
		}
		if err == nil {
			writes.inc()
		}
		sleep(ctx, time.Duration(10+rng.IntN(30))*time.Millisecond)
	}
}

func isFoos(r faultproxy.Request) bool { return strings.HasSuffix(r.URL.Path, "/foos") }

// injectFault applies one random fault and returns its name; faults with a
// duration have ended when it returns.
func injectFault(t *testing.T, ctx context.Context, rng *rand.Rand, srv *localapi.Server, p *faultproxy.Proxy, still []byte) string {
	t.Helper()
	hold := time.Duration(500+rng.IntN(2000)) * time.Millisecond
	switch n := rng.IntN(13); n {
	case 0:
		if err := srv.StopAPIServer(ctx); err != nil {
			t.Fatalf("stopping the API server: %v", err)
		}
		sleep(ctx, time.Duration(rng.IntN(500))*time.Millisecond)
		if err := srv.StartAPIServer(ctx); err != nil {
			t.Fatalf("restarting the API server: %v", err)
		}
		return "restart"
	case 1:
		if _, err := srv.CompactEtcd(ctx); err != nil {
			t.Fatalf("compacting: %v", err)
		}
		p.CutWatches() // resuming from before the compaction gets 410
		return "compact+cut"
	case 2:
		p.CutWatches()
		return "cut"
	case 3:
		p.StallWatches(hold)
		sleep(ctx, hold)
		return "stall"
	case 4, 5, 6:
		st := map[int]metav1.Status{
			4: {Code: 429, Reason: metav1.StatusReasonTooManyRequests, Message: "slow down", Details: &metav1.StatusDetails{RetryAfterSeconds: 1}},
			5: {Code: 500, Reason: metav1.StatusReasonInternalError, Message: "chaos"},
			6: {Code: 403, Reason: metav1.StatusReasonForbidden, Message: "chaos"},
		}[n]
		remove := p.InjectStatus(isFoos, st)
		if rng.IntN(2) == 0 {
			p.CutWatches() // make the informers meet it at once
		}
		sleep(ctx, hold)
		remove()
		return strconv.Itoa(int(st.Code))
	case 7, 8, 9:
		f := []faultproxy.WatchFault{faultproxy.GarbageEvent, faultproxy.GarbageBytes, faultproxy.Truncate}[n-7]
		p.InjectWatchFault(f)
		return f.String()
	case 10:
		remove := p.AnswerWatches(isFoos, staleAnswer(still))
		p.CutWatches()
		sleep(ctx, hold)
		remove()
		return "stale-rv"
	case 11:
		p.InjectEvents([][]byte{faultproxy.EventLine("MODIFIED", still, "notanumber")}, true)
		return "bogus-rv"
	default:
		remove := p.RewriteObjects(blankName)
		p.CutWatches()
		sleep(ctx, hold)
		remove()
		return "blank-names"
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// runtimeGoroutines returns the stacks of the goroutines running code of
// the informer-gen runtime, or "".
func runtimeGoroutines() string {
	buf := make([]byte, 8<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "informer-gen/informer-gen/runtime/") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
