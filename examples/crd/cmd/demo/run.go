package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/informer-gen/informer-gen/runtime/factory"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	"github.com/informer-gen/informer-gen/examples/crd/internal/parallel"
	"github.com/informer-gen/informer-gen/examples/crd/internal/verify"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
	"github.com/informer-gen/informer-gen/examples/crd/manifests"
)

type config struct {
	objects, hosts, workers, clients int
	kubeconfig, namespace            string
	qps                              float64
	timeout                          time.Duration
	verbosity                        int
	ignoreOwnWrites                  bool
	// log receives the demo's log lines; nil means os.Stderr.
	log io.Writer
}

const runLabel = "demo.informer-gen.io/run"

// phase is one timed step of the summary.
type phase struct {
	name string
	took time.Duration
	note string
}

// phases times the steps of a run and prints a line for each as it ends.
type phases struct {
	out  io.Writer
	done []phase
}

// step runs fn as the phase name; fn returns the note printed after its
// time.
func (p *phases) step(name string, fn func() (note string, err error)) error {
	t := time.Now()
	note, err := fn()
	p.done = append(p.done, phase{name, time.Since(t), note})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(p.out, "%-28s %8s  %s\n", name, time.Since(t).Round(time.Millisecond), note)
	return nil
}

// run is the demo: generate, an API server (or --kubeconfig), the factory and
// controller, then a create/update/delete workload, until the server's state
// is reconciled and the caches equal a fresh LIST; then the summary.
func run(ctx context.Context, cfg config, out io.Writer) (err error) {
	if cfg.timeout <= 0 {
		cfg.timeout = 10 * time.Minute
	}
	cfg.clients = max(cfg.clients, 1)
	cfg.hosts = max(cfg.hosts, 1)
	out = &lockedWriter{w: out} // the progress goroutine and the phases both print
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	logOut := cfg.log
	if logOut == nil {
		logOut = os.Stderr
	}
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(cfg.verbosity), textlogger.Output(logOut)))
	ctx = klog.NewContext(ctx, logger)
	localapi.QuietKlog() // the API server and client-go log through global klog
	start := time.Now()
	ph := &phases{out: out}

	// 0. The generated code: informer-gen renders it again from ./apis/...
	// and it must equal the generated/ this binary is built from.
	if err := ph.step("generate (informer-gen)", func() (string, error) { return generate(ctx) }); err != nil {
		return err
	}

	// 1. The API server.
	restCfg, stopServer, err := connect(ctx, &cfg, ph, out)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopServer()) }()
	client, err := controller.NewClient(restCfg)
	if err != nil {
		return err
	}
	runID := randomHex(4)
	sel := runLabel + "=" + runID

	// 2. Factory and controller. Only this run's objects are watched.
	f := informers.NewSharedInformerFactory(restCfg, factory.Options{LabelSelector: sel})
	waits := &deferrals{}
	ctrl, err := controller.New(restCfg, f, controller.Options{Workers: cfg.workers, IgnoreOwnWrites: cfg.ignoreOwnWrites, Freshness: waits})
	if err != nil {
		return err
	}
	fooInf := f.Samplecontroller().V1().Foos().Informer()
	hostInf := f.Samplecontroller().V1().Hosts().Informer()
	stopController := func() error { return nil }
	defer func() { err = errors.Join(err, stopController()) }()
	if err := ph.step("start informers + controller", func() (string, error) {
		var err error
		stopController, err = startController(ctx, f, ctrl)
		return fmt.Sprintf("caches synced, %d workers, label %s", cfg.workers, sel), err
	}); err != nil {
		return err
	}
	stopProgress := startProgress(out, start, ctrl, func() (int, int) { return fooInf.Indexer().Len(), hostInf.Indexer().Len() })
	defer stopProgress()

	// 3. The workload.
	w := &workload{ctx: ctx, client: client, cfg: cfg, runID: runID, labels: map[string]string{runLabel: runID}}
	// Clean up what this run created, whatever happens (matters on a real cluster).
	defer func() {
		if cfg.kubeconfig != "" { // the local server is thrown away
			w.deleteAll(sel)
		}
	}()
	for _, s := range []struct {
		name string
		fn   func() (string, error)
	}{{"create", w.create}, {"update", w.update}, {"delete", w.delete}} {
		if err := ph.step(s.name, s.fn); err != nil {
			return err
		}
	}

	// 4. Wait until the server's state is reconciled and the caches match it.
	var foos []*samplev1.Foo
	var hosts []*samplev1.Host
	if err := ph.step("converge + check", func() (string, error) {
		var err error
		foos, hosts, err = converge(ctx, client, cfg.namespace, sel,
			func() ([]*samplev1.Foo, []*samplev1.Host) { return fooInf.Indexer().List(), hostInf.Indexer().List() })
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d foos and %d hosts reconciled; informer caches equal a fresh LIST", len(foos), len(hosts)), nil
	}); err != nil {
		return err
	}
	stopProgress()

	// 5. Summary.
	printSummary(out, ph.done, time.Since(start), w.writes.Load(), ctrl.Stats(), waits, len(foos), len(hosts))
	return nil
}

// connect starts the local API server, or reads --kubeconfig, and returns
// its rest.Config (with cfg.qps applied; --kubeconfig defaults it to 50) and
// a func that stops what it started.
func connect(ctx context.Context, cfg *config, ph *phases, out io.Writer) (*rest.Config, func() error, error) {
	if cfg.kubeconfig != "" {
		restCfg, err := clientcmd.BuildConfigFromFlags("", cfg.kubeconfig)
		if err != nil {
			return nil, nil, fmt.Errorf("loading kubeconfig %s: %w", cfg.kubeconfig, err)
		}
		if cfg.qps == 0 {
			cfg.qps = 50
		}
		restCfg.QPS, restCfg.Burst = float32(cfg.qps), int(2*cfg.qps)
		fmt.Fprintf(out, "using cluster %s from %s\n", restCfg.Host, cfg.kubeconfig)
		return restCfg, func() error { return nil }, nil
	}
	var srv *localapi.Server
	if err := ph.step("start local API server", func() (string, error) {
		crds, err := localapi.ParseCRDs(manifests.CRDs()...)
		if err != nil {
			return "", err
		}
		srv, err = localapi.Start(ctx, localapi.Options{CRDs: crds})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s, %d CRDs served, kubeconfig %s", srv.Config().Host, len(crds), srv.KubeconfigPath()), nil
	}); err != nil {
		return nil, nil, err
	}
	stop := func() error {
		sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer scancel()
		return srv.Stop(sctx)
	}
	restCfg := srv.Config()
	if cfg.qps > 0 {
		restCfg.QPS, restCfg.Burst = float32(cfg.qps), int(2*cfg.qps)
	}
	return restCfg, stop, nil
}

// startController starts the factory's informers and the controller and
// waits for the caches to sync. stop stops both, waits for them and returns
// the controller's error; it is set even when the sync fails.
func startController(ctx context.Context, f *informers.SharedInformerFactory, ctrl *controller.Controller) (stop func() error, err error) {
	runCtx, stopRun := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var ctrlErr error
	stop = func() error {
		stopRun()
		wg.Wait()
		f.Shutdown()
		return ctrlErr
	}
	f.Start(runCtx)
	wg.Go(func() { ctrlErr = ctrl.Run(runCtx) })
	return stop, f.WaitForCacheSync(ctx)
}

// startProgress prints the controller's counters and the cache sizes at
// most once a second until the returned func is called (safe to call more
// than once; it waits for the printer to stop).
func startProgress(out io.Writer, start time.Time, ctrl *controller.Controller, cached func() (foos, hosts int)) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				s := ctrl.Stats()
				foos, hosts := cached()
				fmt.Fprintf(out, "  [%5.1fs] events %7d  queue %5d  reconciles %7d  status writes %6d  retries %4d  cache: %d foos, %d hosts\n",
					time.Since(start).Seconds(), s.Events, s.QueueLen, s.Reconciles, s.StatusUpdates, s.Errors, foos, hosts)
			}
		}
	})
	return sync.OnceFunc(func() { close(done); wg.Wait() })
}

// workload is the demo's writes: Hosts and Foos labelled with the run's
// label, created, updated and deleted through cfg.clients parallel clients.
type workload struct {
	ctx    context.Context
	client rest.Interface
	cfg    config
	runID  string
	labels map[string]string
	writes atomic.Int64 // every write of the workload
}

func (w *workload) hostName(i int) string { return fmt.Sprintf("host-%s-%03d", w.runID, i) }
func (w *workload) fooName(i int) string  { return fmt.Sprintf("foo-%05d", i) }

func (w *workload) parallel(n int, fn func(i int) error) error {
	return parallelDo(w.ctx, w.cfg.clients, n, fn)
}

// do sends one write of the workload.
func (w *workload) do(r *rest.Request) error {
	w.writes.Add(1)
	return r.Do(w.ctx).Error()
}

func (w *workload) patch(resource, namespace, name, body string) error {
	return w.do(w.client.Patch(types.MergePatchType).Namespace(namespace).Resource(resource).Name(name).Body([]byte(body)))
}

// create creates cfg.hosts Hosts and cfg.objects Foos; every tenth Foo has
// no Host.
func (w *workload) create() (string, error) {
	if err := w.parallel(w.cfg.hosts, func(i int) error {
		h := &samplev1.Host{ObjectMeta: metav1.ObjectMeta{Name: w.hostName(i), Labels: w.labels}, Spec: samplev1.HostSpec{Capacity: int32(2 + i%5)}}
		return w.do(w.client.Post().Resource("hosts").Body(h))
	}); err != nil {
		return "", err
	}
	err := w.parallel(w.cfg.objects, func(i int) error {
		foo := &samplev1.Foo{
			ObjectMeta: metav1.ObjectMeta{Name: w.fooName(i), Namespace: w.cfg.namespace, Labels: w.labels},
			Spec:       samplev1.FooSpec{DeploymentName: "deploy-" + w.fooName(i), Replicas: int32(i % 7)},
		}
		if i%10 != 0 { // every tenth Foo has no Host
			foo.Spec.HostName = w.hostName(i % w.cfg.hosts)
		}
		return w.do(w.client.Post().Namespace(w.cfg.namespace).Resource("foos").Body(foo))
	})
	return fmt.Sprintf("%d hosts, %d foos", w.cfg.hosts, w.cfg.objects), err
}

// update: every third Foo gets more replicas (a new generation), every
// fifth moves to another Host, half the Hosts get a new capacity, which the
// controller propagates to their Foos through the ByHost index.
func (w *workload) update() (string, error) {
	ns := w.cfg.namespace
	var scaled, moved atomic.Int64
	err := w.parallel(w.cfg.objects, func(i int) error {
		switch {
		case i%5 == 1:
			moved.Add(1)
			return w.patch("foos", ns, w.fooName(i), fmt.Sprintf(`{"spec":{"hostName":%q}}`, w.hostName((i+1)%w.cfg.hosts)))
		case i%3 == 0:
			scaled.Add(1)
			return w.patch("foos", ns, w.fooName(i), fmt.Sprintf(`{"spec":{"replicas":%d}}`, i%7+3))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	err = w.parallel(w.cfg.hosts, func(i int) error {
		if i%2 == 1 {
			return nil
		}
		return w.patch("hosts", "", w.hostName(i), fmt.Sprintf(`{"spec":{"capacity":%d}}`, 1+i%4))
	})
	return fmt.Sprintf("%d foos scaled, %d moved, %d hosts resized", scaled.Load(), moved.Load(), (w.cfg.hosts+1)/2), err
}

// delete deletes every fourth Foo and one Host, whose Foos lose their
// capacity.
func (w *workload) delete() (string, error) {
	err := w.parallel(w.cfg.objects, func(i int) error {
		if i%4 != 3 {
			return nil
		}
		return w.do(w.client.Delete().Namespace(w.cfg.namespace).Resource("foos").Name(w.fooName(i)))
	})
	if err != nil {
		return "", err
	}
	deleted := w.cfg.objects / 4 // the i in [0, objects) with i%4 == 3
	err = w.do(w.client.Delete().Resource("hosts").Name(w.hostName(0)))
	return fmt.Sprintf("%d foos, 1 host", deleted), err
}

// deleteAll deletes what the run created, by its label selector, within a
// minute even when the run's ctx is done.
func (w *workload) deleteAll(sel string) {
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(w.ctx), time.Minute)
	defer ccancel()
	_ = w.client.Delete().Namespace(w.cfg.namespace).Resource("foos").Param("labelSelector", sel).Do(cctx).Error()
	_ = w.client.Delete().Resource("hosts").Param("labelSelector", sel).Do(cctx).Error()
}

// converge checks every 250ms until the server's Foos and Hosts are
// reconciled and equal the caches, and returns them; or the last mismatch
// when ctx ends first.
func converge(ctx context.Context, client rest.Interface, ns, sel string, cached func() ([]*samplev1.Foo, []*samplev1.Host)) ([]*samplev1.Foo, []*samplev1.Host, error) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		cachedFoos, cachedHosts := cached()
		foos, hosts, err := check(ctx, client, ns, sel, cachedFoos, cachedHosts)
		if err == nil {
			return foos, hosts, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("not converged before the timeout: %w", err)
		case <-tick.C:
		}
	}
}

// printSummary prints the phases, the totals and PASS.
func printSummary(out io.Writer, done []phase, total time.Duration, writes int64, s controller.Stats, d *deferrals, foos, hosts int) {
	fmt.Fprintf(out, "\nsummary\n")
	for _, p := range done {
		fmt.Fprintf(out, "  %-28s %8s\n", p.name, p.took.Round(time.Millisecond))
	}
	fmt.Fprintf(out, "  %-28s %8s\n", "total", total.Round(time.Millisecond))
	fmt.Fprintf(out, "  writes by the demo: %d  events seen: %d  reconciles: %d  status writes: %d  retried: %d\n",
		writes, s.Events, s.Reconciles, s.StatusUpdates, s.Errors)
	fmt.Fprintf(out, "  per 1,000 reconciles: %.1f conflicts with the demo's writes, %.1f reads older than the controller's own last write, %.1f writes to deleted objects\n",
		perThousand(s.Conflicts, s.Reconciles), perThousand(s.StaleReads, s.Reconciles), perThousand(s.Gone, s.Reconciles))
	n, p50, p99 := d.summary()
	fmt.Fprintf(out, "  reconciles deferred until the cache had the controller's own last write: %d (waited p50 %s, p99 %s)\n",
		n, p50.Round(time.Microsecond), p99.Round(time.Microsecond))
	fmt.Fprintf(out, "  final state: %d foos, %d hosts; every status reconciled; caches equal a fresh LIST\n", foos, hosts)
	fmt.Fprintln(out, "PASS")
}

// check lists Foos and Hosts afresh and compares them with the caches and the
// statuses the controller should have written; it returns what it listed.
func check(ctx context.Context, c rest.Interface, ns, sel string, cachedFoos []*samplev1.Foo, cachedHosts []*samplev1.Host) ([]*samplev1.Foo, []*samplev1.Host, error) {
	fs, _, err := verify.ListFoos(ctx, c, ns, sel)
	if err != nil {
		return nil, nil, err
	}
	hs, _, err := verify.ListHosts(ctx, c, sel)
	if err != nil {
		return nil, nil, err
	}
	return fs, hs, errors.Join(
		verify.Reconciled(fs, hs),
		verify.CacheEqualsList("Foo", cachedFoos, fs),
		verify.CacheEqualsList("Host", cachedHosts, hs),
	)
}

// parallelDo runs fn(0..n-1) on workers goroutines and returns the first
// error (an already-existing or already-deleted object counts as done).
func parallelDo(ctx context.Context, workers, n int, fn func(i int) error) error {
	return parallel.Do(ctx, workers, 0, n, func(i int) error {
		if err := fn(i); err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// lockedWriter serializes writes so that progress lines and phase lines never
// interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func perThousand(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return 1000 * float64(n) / float64(of)
}

// deferrals is the controller's freshness.Metrics: how many reconciles were
// deferred until the cache had applied the controller's own last write, and
// how long they waited.
type deferrals struct {
	mu       sync.Mutex
	deferred int
	waited   []time.Duration
}

func (d *deferrals) Deferred(string) { d.mu.Lock(); d.deferred++; d.mu.Unlock() }
func (d *deferrals) Waited(_ string, w time.Duration) {
	d.mu.Lock()
	d.waited = append(d.waited, w)
	d.mu.Unlock()
}
func (d *deferrals) NotComparable(string) {}

// summary returns the reconciles deferred and the p50 and p99 of their waits.
func (d *deferrals) summary() (n int, p50, p99 time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	w := slices.Clone(d.waited)
	if len(w) == 0 {
		return d.deferred, 0, 0
	}
	slices.Sort(w)
	return d.deferred, w[len(w)/2], w[min(len(w)-1, len(w)*99/100)]
}
