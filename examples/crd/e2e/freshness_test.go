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
	"github.com/informer-gen/informer-gen/runtime/informer"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/parallel"
	"github.com/informer-gen/informer-gen/examples/crd/internal/verify"
	"github.com/informer-gen/informer-gen/runtime/freshness"
)

// TestControllerChurnReadsOwnWrites runs the example controller (4 workers),
// its informers watching with a delay (watchDelay), through creates,
// scale-ups, moves between Hosts, capacity changes and deletes, once reading
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
			if !mode.ignore {
				// The latency deferring adds, next to the watch delay: for
				// each write whose key was deferred, the time to the key's
				// next reconcile, the part of it the watch took to bring the
				// write to the cache, and the rest (the deferral's own).
				t.Logf("%s: deferred keys (%d writes), watch delay up to %v: write -> next reconcile p50 %v p99 %v; write -> cache applied it p50 %v p99 %v; cache applied -> reconcile p50 %v p99 %v, where any key's update event -> its next reconcile takes p50 %v p99 %v (target: write -> next reconcile p99 <= watch delay + 10ms = %v)",
					mode.name, s.deferredWrites, watchDelay, s.defer50, s.defer99, s.watch50, s.watch99, s.requeue50, s.requeue99, s.event50, s.event99, watchDelay+10*time.Millisecond)
			}
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
	// Writes whose key was deferred: write -> next reconcile, write ->
	// cache applied, cache applied -> next reconcile.
	deferredWrites       int
	defer50, defer99     time.Duration
	watch50, watch99     time.Duration
	requeue50, requeue99 time.Duration
	// Any key: its object's update event -> its next reconcile.
	event50, event99 time.Duration
}

// pendingWrite is a controller's write not yet followed by a reconcile of
// its key: when it was made, when the key's cache applied it (zero until
// then), whether the key was deferred since.
type pendingWrite struct {
	rv          string
	at, applied time.Time
	deferred    bool
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
	wroteAt := map[controller.Key]*pendingWrite{}
	var lat, deferLat, watchLat, requeueLat, eventLat []time.Duration
	eventAt := map[controller.Key]time.Time{} // a key's first event not yet followed by its reconcile
	w := &waits{}
	var fooCache, hostCache func() freshness.Cache // set once the factory exists
	opts := controller.Options{
		Freshness:       w,
		Workers:         4,
		IgnoreOwnWrites: ignoreOwnWrites,
		Wrote: func(k controller.Key, rv string) {
			pw := &pendingWrite{rv: rv, at: time.Now()}
			mu.Lock()
			wroteAt[k] = pw
			mu.Unlock()
			// When the key's cache applies the write (on its pop loop, right
			// after the write is readable).
			c := hostCache()
			if k.Kind == controller.KindFoo {
				c = fooCache()
			}
			applied := func() {
				mu.Lock()
				pw.applied = time.Now()
				mu.Unlock()
			}
			if waiting, _, err := c.AfterResourceVersion(k.Namespace, rv, applied); err == nil && !waiting {
				applied()
			}
		},
		Deferred: func(k controller.Key) {
			mu.Lock()
			if pw, ok := wroteAt[k]; ok {
				pw.deferred = true
			}
			mu.Unlock()
		},
		Observe: func(k controller.Key) func(error) {
			now := time.Now()
			mu.Lock()
			if pw, ok := wroteAt[k]; ok {
				lat = append(lat, now.Sub(pw.at))
				if pw.deferred && !pw.applied.IsZero() {
					deferLat = append(deferLat, now.Sub(pw.at))
					watchLat = append(watchLat, pw.applied.Sub(pw.at))
					requeueLat = append(requeueLat, now.Sub(pw.applied))
				}
				delete(wroteAt, k)
			}
			if at, ok := eventAt[k]; ok {
				eventLat = append(eventLat, now.Sub(at))
				delete(eventAt, k)
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
	stall := func(resource string, offset time.Duration) {
		select {
		case <-stallCtx.Done():
			return
		case <-time.After(offset):
		}
		tick := time.NewTicker(watchDelay + 50*time.Millisecond)
		defer tick.Stop()
		for {
			p.StallWatchesOf(watchDelay, func(path string) bool { return strings.HasSuffix(path, resource) })
			select {
			case <-stallCtx.Done():
				return
			case <-tick.C:
			}
		}
	}
	stalls.Go(func() { stall("/hosts", 0) })
	// The Foos' watch lags too, half a period later, so that a Host's
	// capacity change (which requeues its Foos) often arrives before the
	// controller's last status write of those Foos.
	stalls.Go(func() { stall("/foos", watchDelay/2) })
	defer func() { stopStalls(); stalls.Wait() }()
	f := informers.NewSharedInformerFactory(p.Config(), factory.Options{Namespaces: []string{ns}})
	t.Cleanup(f.Shutdown)
	fooCache = func() freshness.Cache { return f.Samplecontroller().V1().Foos().Informer().Indexer() }
	hostCache = func() freshness.Cache { return f.Samplecontroller().V1().Hosts().Informer().Indexer() }
	// The queue's own wait, to compare the deferred keys' with: from an
	// object's event to the next reconcile of its key.
	event := func(k controller.Key) {
		now := time.Now()
		mu.Lock()
		if _, ok := eventAt[k]; !ok {
			eventAt[k] = now
		}
		mu.Unlock()
	}
	if _, err := f.Samplecontroller().V1().Foos().Informer().AddHandler(informer.HandlerFuncs[*samplev1.Foo]{
		UpdateFunc: func(_, o *samplev1.Foo) {
			event(controller.Key{Kind: controller.KindFoo, Namespace: o.Namespace, Name: o.Name})
		},
	}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Samplecontroller().V1().Hosts().Informer().AddHandler(informer.HandlerFuncs[*samplev1.Host]{
		UpdateFunc: func(_, o *samplev1.Host) { event(controller.Key{Kind: controller.KindHost, Name: o.Name}) },
	}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
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
	// round) moving to another Host, and every third round changing each
	// Host's capacity; then delete a third and create as many anew.
	for round := range 12 {
		if round%3 == 2 {
			for i := range hosts {
				body := fmt.Sprintf(`{"spec":{"capacity":%d}}`, 2+(i+round)%4)
				if err := client.Patch(types.MergePatchType).Resource("hosts").Name(hostName(i)).Body([]byte(body)).Do(ctx).Error(); err != nil {
					t.Fatal(err)
				}
			}
		}
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
	out.deferredWrites = len(deferLat)
	out.defer50, out.defer99 = percentiles(deferLat)
	out.watch50, out.watch99 = percentiles(watchLat)
	out.requeue50, out.requeue99 = percentiles(requeueLat)
	out.event50, out.event99 = percentiles(eventLat)
	return out
}
