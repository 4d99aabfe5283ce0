package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informer-gen/informer-gen/runtime/factory"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/parallel"
	"github.com/informer-gen/informer-gen/examples/crd/internal/verify"
)

// TestControllerChurnReadsOwnWrites runs the example controller (4 workers),
// its informers watching with a delay (watchDelay), through creates,
// scale-ups, moves between Hosts and deletes, once reading
// its own writes (the default) and once ignoring them, and counts the
// reconciles that read an object older than the controller's own last
// write of it: there must be none with the default. It logs, per 1,000
// reconciles, those stale reads and the conflicts, the p50/p99 time from a
// status write to the key's next reconcile (mostly the time until the
// workload changes the object again), and the p50/p99 time a deferred key
// waited for the cache: the latency deferring adds.
func TestControllerChurnReadsOwnWrites(t *testing.T) {
	for _, mode := range []struct {
		name   string
		ignore bool
	}{{"ignore-own-writes", true}, {"read-own-writes", false}} {
		t.Run(mode.name, func(t *testing.T) {
			s := runChurn(t, "churn-"+mode.name, mode.ignore)
			t.Logf("%s: reconciles %d, stale reads %d (%.1f per 1,000), conflicts %d (%.1f per 1,000), writes to deleted objects %d; write -> next reconcile of the key p50 %v p99 %v (%d samples); keys deferred %d, waited p50 %v p99 %v",
				mode.name, s.Reconciles, s.StaleReads, per1000(s.StaleReads, s.Reconciles), s.Conflicts, per1000(s.Conflicts, s.Reconciles),
				s.Gone, s.p50, s.p99, s.samples, s.deferred, s.wait50, s.wait99)
			if !mode.ignore && s.StaleReads != 0 {
				t.Errorf("%d reconciles read an object older than the controller's own last write of it, want 0", s.StaleReads)
			}
		})
	}
}

func per1000(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return 1000 * float64(n) / float64(of)
}

// watchDelay is how long the churn test holds watch streams at a time.
// It is longer than a key waits in the queue on a busy machine (seconds),
// or the cache would catch up before the key's next reconcile anyway.
const watchDelay = 3 * time.Second

type churnStats struct {
	controller.Stats
	p50, p99       time.Duration
	samples        int
	deferred       int
	wait50, wait99 time.Duration
}

// waits records the freshness hooks: keys deferred and how long they waited.
type waits struct {
	mu       sync.Mutex
	deferred int
	waited   []time.Duration
}

func (w *waits) Deferred(string) { w.mu.Lock(); w.deferred++; w.mu.Unlock() }
func (w *waits) Waited(_ string, d time.Duration) {
	w.mu.Lock()
	w.waited = append(w.waited, d)
	w.mu.Unlock()
}
func (w *waits) NotComparable(string) {}

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	slices.Sort(d)
	return d[len(d)/2], d[min(len(d)-1, len(d)*99/100)]
}

func runChurn(t *testing.T, ns string, ignoreOwnWrites bool) churnStats {
	ctx := t.Context()
	// Few keys, so that a key's next reconcile comes sooner than the
	// lagging watch delivers the controller's last write of it.
	const n, hosts = 30, 3
	hostName := func(i int) string { return fmt.Sprintf("%s-host-%d", ns, i%hosts) }

	var mu sync.Mutex
	wroteAt := map[controller.Key]time.Time{}
	var lat []time.Duration
	w := &waits{}
	opts := controller.Options{
		Freshness:       w,
		Workers:         4,
		IgnoreOwnWrites: ignoreOwnWrites,
		Wrote: func(k controller.Key, _ string) {
			mu.Lock()
			wroteAt[k] = time.Now()
			mu.Unlock()
		},
		Observe: func(k controller.Key) func(error) {
			mu.Lock()
			if at, ok := wroteAt[k]; ok {
				lat = append(lat, time.Since(at))
				delete(wroteAt, k)
			}
			mu.Unlock()
			return nil
		},
	}
	// The informers watch through a proxy that holds the Hosts' watch
	// stream for watchDelay at a time: a watch that lags the writes, as
	// on a busy server, while the Foos' events (which requeue their Host)
	// flow, so that a Host is requeued before its cache has the
	// controller's last write of it. The controller writes to the server
	// directly.
	p := newProxy(t, server.Config())
	stallCtx, stopStalls := context.WithCancel(ctx)
	var stalls sync.WaitGroup
	stalls.Go(func() {
		tick := time.NewTicker(watchDelay + 50*time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stallCtx.Done():
				return
			case <-tick.C:
				p.StallWatchesOf(watchDelay, func(path string) bool { return strings.HasSuffix(path, "/hosts") })
			}
		}
	})
	defer func() { stopStalls(); stalls.Wait() }()
	f := informers.NewSharedInformerFactory(p.Config(), factory.Options{Namespace: ns})
	t.Cleanup(f.Shutdown)
	ctrl, err := controller.New(server.Config(), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	f.Start(runCtx)
	go func() { done <- ctrl.Run(runCtx) }()

	for i := range hosts {
		h := &samplev1.Host{ObjectMeta: metav1.ObjectMeta{Name: hostName(i)}, Spec: samplev1.HostSpec{Capacity: int32(2 + i)}}
		if err := client.Post().Resource("hosts").Body(h).Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for i := range hosts {
			_ = client.Delete().Resource("hosts").Name(hostName(i)).Do(context.Background()).Error()
		}
	})
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, n, hostName); err != nil {
		t.Fatal(err)
	}
	patch := func(name, body string) error {
		return client.Patch(types.MergePatchType).Namespace(ns).Resource("foos").Name(name).Body([]byte(body)).Do(ctx).Error()
	}
	// Twelve rounds over every Foo, 8 clients, scaling up and (every third
	// round) moving to another Host; then delete a third and create as
	// many anew.
	for round := range 12 {
		if err := parallel.Do(ctx, 8, 0, n, func(i int) error {
			name := fmt.Sprintf("foo-%d", i)
			switch round % 3 {
			case 1:
				return patch(name, fmt.Sprintf(`{"spec":{"hostName":%q}}`, hostName(i+1+round)))
			default:
				return patch(name, fmt.Sprintf(`{"spec":{"replicas":%d}}`, 3+round+i%5))
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := parallel.Do(ctx, 4, 0, n/3, func(i int) error {
		return client.Delete().Namespace(ns).Resource("foos").Name(fmt.Sprintf("foo-%d", 3*i)).Do(ctx).Error()
	}); err != nil {
		t.Fatal(err)
	}
	if err := e2eutil.CreateFoos(ctx, client, ns, "new", 0, n/3, hostName); err != nil {
		t.Fatal(err)
	}

	fooInf := f.Samplecontroller().V1().Foos().Informer()
	hostInf := f.Samplecontroller().V1().Hosts().Informer()
	prefix := ns + "-host-"
	mine := func(hs []*samplev1.Host) []*samplev1.Host {
		return slices.DeleteFunc(slices.Clone(hs), func(h *samplev1.Host) bool { return !strings.HasPrefix(h.Name, prefix) })
	}
	e2eutil.Eventually(t, ctx, 5*time.Minute, "every status reconciled and the caches equal a LIST", func() error {
		foos, _, err := verifyListFoos(ctx, ns)
		if err != nil {
			return err
		}
		all, _, err := verify.ListHosts(ctx, client, "")
		if err != nil {
			return err
		}
		hs := mine(all)
		return errors.Join(
			verify.Reconciled(foos, hs),
			verify.CacheEqualsList("Foo", fooInf.Indexer().List(), foos),
			verify.CacheEqualsList("Host", mine(hostInf.Indexer().List()), hs),
		)
	})
	stop()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	out := churnStats{Stats: ctrl.Stats(), samples: len(lat)}
	out.p50, out.p99 = percentiles(lat)
	w.mu.Lock()
	defer w.mu.Unlock()
	out.wait50, out.wait99 = percentiles(w.waited)
	out.deferred = w.deferred
	return out
}
