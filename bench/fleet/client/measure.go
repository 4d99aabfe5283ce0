package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/bench/fleet/internal/endpoints"
	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// factoryOptions are every cluster's factory options, in the fleet and in
// the separate processes alike.
var factoryOptions = factory.Options{InternStrings: true}

func foos(f *informers.SharedInformerFactory) *informer.Informer[*samplev1.Foo] {
	return f.Samplecontroller().V1().Foos().Informer()
}

// controller is a fleet with a Watch that queues every Foo's key and two
// workers that read each key's Foo from its cluster's Lister: what a fleet
// controller holds, beside its caches.
type controller struct {
	fl     *fleet.Fleet[*informers.SharedInformerFactory]
	q      *workqueue.Queue[fleet.Key]
	cancel func()
	done   sync.WaitGroup
	runErr error
}

func startController(ctx context.Context) *controller {
	c := &controller{q: workqueue.New(workqueue.Options[fleet.Key]{Name: "foos"})}
	c.fl = fleet.New(fleet.Options[*informers.SharedInformerFactory]{NewFactory: informers.NewSharedInformerFactory, Factory: factoryOptions})
	fleet.Watch(c.fl, foos, fleet.Enqueue[*samplev1.Foo](c.q), informer.HandlerOptions{})
	ctx, c.cancel = context.WithCancel(ctx)
	c.done.Go(func() { c.runErr = c.fl.Run(ctx) })
	c.done.Go(func() {
		_ = c.q.Run(ctx, 2, func(ctx context.Context, k fleet.Key) error {
			cl, ok := c.fl.Cluster(k.Cluster)
			if !ok {
				return nil
			}
			_, _ = cl.Factory().Samplecontroller().V1().Foos().Lister().Foos(k.Namespace).Get(k.Name)
			return nil
		})
	})
	return c
}

func (c *controller) stop() error {
	c.cancel()
	c.done.Wait()
	return c.runErr
}

// drained waits until the queue is empty.
func (c *controller) drained(ctx context.Context) {
	for c.q.Len() > 0 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
}

func (c *controller) engage(eps ...endpoints.Endpoint) error {
	for _, ep := range eps {
		if err := c.fl.Engage(ep.Name, fleet.Endpoint{Config: ep.Config()}); err != nil {
			return err
		}
	}
	return nil
}

// waitSynced waits for each named cluster on its own and returns how long
// each took from start.
func (c *controller) waitSynced(ctx context.Context, start time.Time, eps []endpoints.Endpoint) ([]time.Duration, error) {
	took := make([]time.Duration, len(eps))
	errs := make([]error, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Go(func() {
			cl, ok := c.fl.Cluster(ep.Name)
			if !ok {
				errs[i] = fmt.Errorf("cluster %s not engaged", ep.Name)
				return
			}
			errs[i] = cl.WaitForCacheSync(ctx)
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return took, err
		}
	}
	return took, nil
}

// liveHeap is the heap in use after three GCs, with pauses between them for
// cleanups (runtime.AddCleanup, as client-go's transport cache uses) to run.
func liveHeap() uint64 {
	for range 3 {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// timedList LISTs the cluster's Foos in one request (JSON, as decoded by
// encoding/json into the typed list) and returns how long it took.
func timedList(ctx context.Context, ep endpoints.Endpoint) (time.Duration, int, error) {
	hc, err := rest.HTTPClientFor(ep.Config())
	if err != nil {
		return 0, 0, err
	}
	defer hc.CloseIdleConnections()
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ep.Host+"/apis/"+samplev1.SchemeGroupVersion.String()+"/foos", nil)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("LIST %s: %s", ep.Name, resp.Status)
	}
	var list samplev1.FooList
	if err := json.Unmarshal(b, &list); err != nil {
		return 0, 0, err
	}
	return time.Since(start), len(list.Items), nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

func kb(b float64) string { return fmt.Sprintf("%.1f kB", b/1000) }

// measure runs the in-process targets against the serve command's
// clusters and prints one line per figure.
func measure(args []string) error {
	fs := flag.NewFlagSet("measure", flag.ExitOnError)
	path := fs.String("endpoints", "", "the serve command's endpoints file")
	rounds := fs.Int("rounds", 3, "rounds of the engage/disengage and unreachable measurements")
	badRounds := fs.Int("unreachable-rounds", 0, "rounds of the unreachable-cluster pair (default: -rounds)")
	idleWait := fs.Duration("idle-wait", 95*time.Second, "after disengaging the empty clusters, wait this long (past client-go's 90 s idle-connection timeout) and measure again; 0 skips")
	_ = fs.Parse(args)
	eps, err := endpoints.Read(*path)
	if err != nil {
		return err
	}
	quietKlog()
	ctx := context.Background()
	report := func(name, value, note string) {
		fmt.Printf("%-58s %14s  %s\n", name, value, note)
	}
	fmt.Printf("# load average: %s\n", loadavg())

	// 1. Fixed cost per engaged cluster: clusters with no Foo, over REST
	// through the proxy. One cluster engaged and disengaged first, so
	// one-time costs (schemes, decoders) are not counted.
	{
		c := startController(ctx)
		if err := c.engage(eps.Empty[0]); err != nil {
			return err
		}
		if _, err := c.waitSynced(ctx, time.Now(), eps.Empty[:1]); err != nil {
			return err
		}
		c.fl.Disengage(eps.Empty[0].Name)
		n := len(eps.Empty) - 1
		heap0, g0 := liveHeap(), runtime.NumGoroutine()
		if err := c.engage(eps.Empty[1:]...); err != nil {
			return err
		}
		if _, err := c.waitSynced(ctx, time.Now(), eps.Empty[1:]); err != nil {
			return err
		}
		heap1, g1 := liveHeap(), runtime.NumGoroutine()
		for _, ep := range eps.Empty[1:] {
			c.fl.Disengage(ep.Name)
		}
		heap2, g2 := liveHeap(), runtime.NumGoroutine()
		report(fmt.Sprintf("fixed heap per engaged cluster (%d empty, REST)", n), kb(float64(int64(heap1)-int64(heap0))/float64(n)), "target <= 1 MB")
		report("goroutines per engaged cluster", fmt.Sprintf("%.1f", float64(g1-g0)/float64(n)), fmt.Sprintf("%.1f left per cluster once disengaged", float64(g2-g0)/float64(n)))
		report("heap after disengaging them all / before", fmt.Sprintf("%.3f", float64(heap2)/float64(heap0)), fmt.Sprintf("before %.1f MB, left %s per cluster", float64(heap0)/1e6, kb(float64(int64(heap2)-int64(heap0))/float64(n))))
		if *idleWait > 0 {
			time.Sleep(*idleWait)
			heap3, g3 := liveHeap(), runtime.NumGoroutine()
			report(fmt.Sprintf("  the same %s later", *idleWait), fmt.Sprintf("%.3f", float64(heap3)/float64(heap0)), fmt.Sprintf("left %s and %.1f goroutines per cluster", kb(float64(int64(heap3)-int64(heap0))/float64(n)), float64(g3-g0)/float64(n)))
		}
		// BENCH_FLEET_DEBUG=file: after disengaging them all (and the idle wait), the goroutines left to stderr and a heap
		// profile to file (every allocation sampled), to see what stays.
		if os.Getenv("BENCH_FLEET_DEBUG") != "" {
			_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
			if f, err := os.Create(os.Getenv("BENCH_FLEET_DEBUG")); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
		if err := c.stop(); err != nil {
			return err
		}
	}

	// 2. The whole fleet: 100 clusters with their Foos.
	all := eps.Clusters
	last := all[len(all)-1]
	c := startController(ctx)
	heapEmpty := liveHeap()
	start := time.Now()
	if err := c.engage(all...); err != nil {
		return err
	}
	took, err := c.waitSynced(ctx, start, all)
	if err != nil {
		return err
	}
	c.drained(ctx)
	heapAll := liveHeap()
	report(fmt.Sprintf("%d clusters x %d Foos: all synced", len(all), all[0].Objects), ms(slices.Max(took)), fmt.Sprintf("median cluster %s", ms(median(took))))
	report("heap per cluster, objects included", kb(float64(heapAll-heapEmpty)/float64(len(all))), fmt.Sprintf("total %.0f MB", float64(heapAll-heapEmpty)/1e6))

	// 3. Engage one more cluster while the others run, then disengage it.
	c.fl.Disengage(last.Name)
	c.drained(ctx)
	var syncs, lists, extra []time.Duration
	var ratios []float64
	var grown []float64
	for range *rounds {
		var ls []time.Duration
		for range 3 {
			d, n, err := timedList(ctx, last)
			if err != nil {
				return err
			}
			if n != last.Objects {
				return fmt.Errorf("LIST of %s: %d Foos, want %d", last.Name, n, last.Objects)
			}
			ls = append(ls, d)
		}
		list := median(ls)
		heap0 := liveHeap()
		t0 := time.Now()
		if err := c.engage(last); err != nil {
			return err
		}
		d, err := c.waitSynced(ctx, t0, []endpoints.Endpoint{last})
		if err != nil {
			return err
		}
		c.drained(ctx)
		heap1 := liveHeap()
		c.fl.Disengage(last.Name)
		c.drained(ctx)
		heap2 := liveHeap()
		syncs, lists, extra = append(syncs, d[0]), append(lists, list), append(extra, d[0]-list)
		ratios = append(ratios, float64(heap2)/float64(heap0))
		grown = append(grown, float64(int64(heap1)-int64(heap0)))
	}
	report(fmt.Sprintf("engage 1 cluster (%d Foos) beside %d: synced after", last.Objects, len(all)-1), ms(median(syncs)), fmt.Sprintf("rounds %v", roundMs(syncs)))
	report("  its LIST alone (one request, JSON decoded)", ms(median(lists)), fmt.Sprintf("rounds %v", roundMs(lists)))
	report("  synced minus LIST", ms(median(extra)), "target <= 1 s")
	report("  heap it added (objects included)", kb(medianF(grown)), "")
	report("disengage it: heap after GC / before engaging", fmt.Sprintf("%.3f", slices.Max(ratios)), fmt.Sprintf("worst of %d rounds, each %v; target <= 1.05", len(ratios), roundF(ratios)))
	if err := c.stop(); err != nil {
		return err
	}

	// 4. One unreachable cluster: the others' sync with and without it.
	// In each round two fleet processes sync the same 99 clusters at
	// once, one with the unreachable cluster beside them, so both see the
	// same machine and server load (rounds one after the other drift with
	// it by more than the difference sought); which one engages first
	// alternates.
	good := all[:len(all)-1]
	if *badRounds <= 0 {
		*badRounds = *rounds
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var sideBy []float64
	var sideWith, sideWithout []time.Duration
	for r := range *badRounds {
		pw, err := startMember(self, *path, "-timed", "-first", strconv.Itoa(len(good)), "-unreachable")
		if err != nil {
			return err
		}
		po, err := startMember(self, *path, "-timed", "-first", strconv.Itoa(len(good)))
		if err != nil {
			return err
		}
		if err := errors.Join(pw.waitReady(), po.waitReady()); err != nil {
			return errors.Join(err, pw.stop(), po.stop())
		}
		first, second := pw, po
		if r%2 == 1 {
			first, second = po, pw
		}
		if _, err := io.WriteString(first.stdin, "go\n"); err != nil {
			return err
		}
		if _, err := io.WriteString(second.stdin, "go\n"); err != nil {
			return err
		}
		if err := errors.Join(<-pw.synced, <-po.synced); err != nil {
			return err
		}
		sideWith, sideWithout = append(sideWith, pw.took), append(sideWithout, po.took)
		sideBy = append(sideBy, float64(pw.took)/float64(po.took))
		if err := errors.Join(pw.stop(), po.stop()); err != nil {
			return err
		}
	}
	report(fmt.Sprintf("%d clusters synced, without an unreachable one", len(good)), ms(median(sideWithout)), fmt.Sprintf("rounds %v", roundMs(sideWithout)))
	report(fmt.Sprintf("%d clusters synced, with 1 unreachable (hung TCP)", len(good)), ms(median(sideWith)), fmt.Sprintf("rounds %v", roundMs(sideWith)))
	report("  ratio with/without within each round (median)", fmt.Sprintf("%.2f", medianF(sideBy)), fmt.Sprintf("rounds %v; target <= 1.05", roundF(sideBy)))
	fmt.Printf("# load average: %s\n", loadavg())
	return nil
}

func roundMs(ds []time.Duration) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond))
	}
	return out
}

func roundF(fs []float64) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%.3f", f)
	}
	return out
}

func medianF(fs []float64) float64 {
	s := slices.Clone(fs)
	slices.Sort(s)
	return s[len(s)/2]
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return string(b[:len(b)-1])
}
