package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
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
}

const runLabel = "demo.informer-gen.io/run"

// phase is one timed step of the summary.
type phase struct {
	name string
	took time.Duration
	note string
}

func run(ctx context.Context, cfg config, out io.Writer) (err error) {
	if cfg.timeout <= 0 {
		cfg.timeout = 10 * time.Minute
	}
	cfg.clients = max(cfg.clients, 1)
	cfg.hosts = max(cfg.hosts, 1)
	out = &lockedWriter{w: out} // the progress goroutine and the phases both print
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(cfg.verbosity), textlogger.Output(os.Stderr)))
	ctx = klog.NewContext(ctx, logger)
	localapi.QuietKlog() // the API server and client-go log through global klog
	start := time.Now()
	var phases []phase
	timed := func(name string, fn func() (string, error)) error {
		t := time.Now()
		note, err := fn()
		phases = append(phases, phase{name, time.Since(t), note})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(out, "%-28s %8s  %s\n", name, time.Since(t).Round(time.Millisecond), note)
		return nil
	}

	// 0. The generated code: informer-gen renders it again from ./apis/...
	// and it must equal the generated/ this binary is built from.
	if err := timed("generate (informer-gen)", func() (string, error) { return generate(ctx) }); err != nil {
		return err
	}

	// 1. The API server.
	var restCfg *rest.Config
	if cfg.kubeconfig == "" {
		var srv *localapi.Server
		if err := timed("start local API server", func() (string, error) {
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
			return err
		}
		defer func() {
			sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer scancel()
			err = errors.Join(err, srv.Stop(sctx))
		}()
		restCfg = srv.Config()
		if cfg.qps > 0 {
			restCfg.QPS, restCfg.Burst = float32(cfg.qps), int(2*cfg.qps)
		}
	} else {
		restCfg, err = clientcmd.BuildConfigFromFlags("", cfg.kubeconfig)
		if err != nil {
			return fmt.Errorf("loading kubeconfig %s: %w", cfg.kubeconfig, err)
		}
		if cfg.qps == 0 {
			cfg.qps = 50
		}
		restCfg.QPS, restCfg.Burst = float32(cfg.qps), int(2*cfg.qps)
		fmt.Fprintf(out, "using cluster %s from %s\n", restCfg.Host, cfg.kubeconfig)
	}
	client, err := controller.NewClient(restCfg)
	if err != nil {
		return err
	}
	runID := randomHex(4)
	sel := runLabel + "=" + runID

	// 2. Factory and controller. Only this run's objects are watched.
	f := informers.NewSharedInformerFactory(restCfg, factory.Options{LabelSelector: sel})
	ctrl, err := controller.New(restCfg, f, controller.Options{Workers: cfg.workers})
	if err != nil {
		return err
	}
	fooInf := f.Samplecontroller().V1().Foos().Informer()
	hostInf := f.Samplecontroller().V1().Hosts().Informer()
	runCtx, stopRun := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var ctrlErr error
	defer func() {
		stopRun()
		wg.Wait()
		f.Shutdown()
		err = errors.Join(err, ctrlErr)
	}()
	if err := timed("start informers + controller", func() (string, error) {
		f.Start(runCtx)
		wg.Go(func() { ctrlErr = ctrl.Run(runCtx) })
		if err := f.WaitForCacheSync(ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("caches synced, %d workers, label %s", cfg.workers, sel), nil
	}); err != nil {
		return err
	}

	// Live progress, at most a line per second.
	progressDone := make(chan struct{})
	var progressWG sync.WaitGroup
	progressWG.Go(func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-progressDone:
				return
			case <-tick.C:
				s := ctrl.Stats()
				fmt.Fprintf(out, "  [%5.1fs] events %7d  queue %5d  reconciles %7d  status writes %6d  retries %4d  cache: %d foos, %d hosts\n",
					time.Since(start).Seconds(), s.Events, s.QueueLen, s.Reconciles, s.StatusUpdates, s.Errors,
					fooInf.Indexer().Len(), hostInf.Indexer().Len())
			}
		}
	})
	stopProgress := sync.OnceFunc(func() { close(progressDone); progressWG.Wait() })
	defer stopProgress()

	ns := cfg.namespace
	labels := map[string]string{runLabel: runID}
	hostName := func(i int) string { return fmt.Sprintf("host-%s-%03d", runID, i) }
	fooName := func(i int) string { return fmt.Sprintf("foo-%05d", i) }
	var writes atomic.Int64
	parallel := func(n int, fn func(i int) error) error { return parallelDo(ctx, cfg.clients, n, fn) }
	do := func(r *rest.Request) error { // every write of the workload goes through here
		writes.Add(1)
		return r.Do(ctx).Error()
	}
	patch := func(resource, namespace, name, body string) error {
		return do(client.Patch(types.MergePatchType).Namespace(namespace).Resource(resource).Name(name).Body([]byte(body)))
	}
	// Clean up what this run created, whatever happens (matters on a real cluster).
	defer func() {
		if cfg.kubeconfig == "" {
			return // the local server is thrown away
		}
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer ccancel()
		_ = client.Delete().Namespace(ns).Resource("foos").Param("labelSelector", sel).Do(cctx).Error()
		_ = client.Delete().Resource("hosts").Param("labelSelector", sel).Do(cctx).Error()
	}()

	// 3. The workload.
	nFoos := cfg.objects
	if err := timed("create", func() (string, error) {
		if err := parallel(cfg.hosts, func(i int) error {
			h := &samplev1.Host{ObjectMeta: metav1.ObjectMeta{Name: hostName(i), Labels: labels}, Spec: samplev1.HostSpec{Capacity: int32(2 + i%5)}}
			return do(client.Post().Resource("hosts").Body(h))
		}); err != nil {
			return "", err
		}
		err := parallel(nFoos, func(i int) error {
			foo := &samplev1.Foo{
				ObjectMeta: metav1.ObjectMeta{Name: fooName(i), Namespace: ns, Labels: labels},
				Spec:       samplev1.FooSpec{DeploymentName: "deploy-" + fooName(i), Replicas: int32(i % 7)},
			}
			if i%10 != 0 { // every tenth Foo has no Host
				foo.Spec.HostName = hostName(i % cfg.hosts)
			}
			return do(client.Post().Namespace(ns).Resource("foos").Body(foo))
		})
		return fmt.Sprintf("%d hosts, %d foos", cfg.hosts, nFoos), err
	}); err != nil {
		return err
	}
	if err := timed("update", func() (string, error) {
		// Every third Foo: more replicas (a new generation). Every fifth:
		// moves to another Host. Half the Hosts: new capacity, which the
		// controller propagates to their Foos through the ByHost index.
		var scaled, moved atomic.Int64
		err := parallel(nFoos, func(i int) error {
			switch {
			case i%5 == 1:
				moved.Add(1)
				return patch("foos", ns, fooName(i), fmt.Sprintf(`{"spec":{"hostName":%q}}`, hostName((i+1)%cfg.hosts)))
			case i%3 == 0:
				scaled.Add(1)
				return patch("foos", ns, fooName(i), fmt.Sprintf(`{"spec":{"replicas":%d}}`, i%7+3))
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		err = parallel(cfg.hosts, func(i int) error {
			if i%2 == 1 {
				return nil
			}
			return patch("hosts", "", hostName(i), fmt.Sprintf(`{"spec":{"capacity":%d}}`, 1+i%4))
		})
		return fmt.Sprintf("%d foos scaled, %d moved, %d hosts resized", scaled.Load(), moved.Load(), (cfg.hosts+1)/2), err
	}); err != nil {
		return err
	}
	var deletedFoos int
	if err := timed("delete", func() (string, error) {
		err := parallel(nFoos, func(i int) error {
			if i%4 != 3 {
				return nil
			}
			return do(client.Delete().Namespace(ns).Resource("foos").Name(fooName(i)))
		})
		if err != nil {
			return "", err
		}
		deletedFoos = nFoos / 4 // the i in [0, nFoos) with i%4 == 3
		// One Host goes away: its Foos lose their capacity.
		err = do(client.Delete().Resource("hosts").Name(hostName(0)))
		return fmt.Sprintf("%d foos, 1 host", deletedFoos), err
	}); err != nil {
		return err
	}

	// 4. Wait until the server's state is reconciled and the caches match it.
	var lastErr error
	var foos []*samplev1.Foo
	var hosts []*samplev1.Host
	if err := timed("converge + check", func() (string, error) {
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			lastErr = check(ctx, client, ns, sel, fooInf.Indexer().List(), hostInf.Indexer().List(), &foos, &hosts)
			if lastErr == nil {
				return fmt.Sprintf("%d foos and %d hosts reconciled; informer caches equal a fresh LIST", len(foos), len(hosts)), nil
			}
			select {
			case <-ctx.Done():
				return "", fmt.Errorf("not converged before the timeout: %w", lastErr)
			case <-tick.C:
			}
		}
	}); err != nil {
		return err
	}
	stopProgress()

	// 5. Summary.
	s := ctrl.Stats()
	total := time.Since(start)
	fmt.Fprintf(out, "\nsummary\n")
	for _, p := range phases {
		fmt.Fprintf(out, "  %-28s %8s\n", p.name, p.took.Round(time.Millisecond))
	}
	fmt.Fprintf(out, "  %-28s %8s\n", "total", total.Round(time.Millisecond))
	fmt.Fprintf(out, "  writes by the demo: %d  events seen: %d  reconciles: %d  status writes: %d  retried: %d\n",
		writes.Load(), s.Events, s.Reconciles, s.StatusUpdates, s.Errors)
	fmt.Fprintf(out, "  final state: %d foos, %d hosts; every status reconciled; caches equal a fresh LIST\n", len(foos), len(hosts))
	fmt.Fprintln(out, "PASS")
	return nil
}

// check lists Foos and Hosts afresh and compares them with the caches and the
// statuses the controller should have written.
func check(ctx context.Context, c rest.Interface, ns, sel string, cachedFoos []*samplev1.Foo, cachedHosts []*samplev1.Host, foos *[]*samplev1.Foo, hosts *[]*samplev1.Host) error {
	fs, _, err := verify.ListFoos(ctx, c, ns, sel)
	if err != nil {
		return err
	}
	hs, _, err := verify.ListHosts(ctx, c, sel)
	if err != nil {
		return err
	}
	*foos, *hosts = fs, hs
	return errors.Join(
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
