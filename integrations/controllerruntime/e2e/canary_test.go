package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// TestCanaryAgainstTheAPIServer is the redaction rule (docs/guide.md, "What
// reaches a log or an error") against a real API server, through the
// controller-runtime integration: Foos with a canary in every string field a
// client can set (spec, label and annotation values); LIST responses
// rewritten so that every creationTimestamp is the canary (what no API
// server sends, and only the decoder can reject), then a Foo its transform
// rejects with the object in the error, so that readiness fails twice; then a
// handler and a reconcile that panic with the object. The readyz text, every
// log line of the informers (the Runnable's logger) and the errors must not
// hold the canary. The runtime/wire and runtime/factory canary tests cover
// every codec and the klog global logger; this one covers the real server
// and the readyz check.
func TestCanaryAgainstTheAPIServer(t *testing.T) {
	const canary = "cAnArY0hunter2"
	ctx := context.Background()
	ns := "canary"
	c := newClient(t)
	canaryFoo := func(name string) *samplev1.Foo {
		f := foo(ns, name, canary)
		f.Spec.DeploymentName = canary
		f.Labels = map[string]string{"canary": canary}
		f.Annotations = map[string]string{"canary": canary + " " + canary}
		return f
	}
	for _, name := range []string{"a", "t"} {
		if err := c.Create(ctx, canaryFoo(name)); err != nil {
			t.Fatal(err)
		}
	}

	var corrupt atomic.Bool
	corrupt.Store(true)
	timestamps := regexp.MustCompile(`"creationTimestamp":"[^"]*"`)
	cfg := rest.CopyConfig(server.Config())
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			if err != nil || r.URL.Query().Get("watch") == "true" || !corrupt.Load() || !strings.Contains(r.URL.Path, "/foos") {
				return resp, err
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return nil, err
			}
			b = timestamps.ReplaceAll(b, []byte(`"creationTimestamp":"`+canary+`"`))
			resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			resp.Header.Del("Content-Length")
			return resp, nil
		})
	}

	var (
		mu                           sync.Mutex
		lines                        []string
		errs                         []error
		panics, reconciles, rejected int
		panicked                     = map[string]bool{}
	)
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		lines = append(lines, prefix+" "+args)
		mu.Unlock()
	}, funcr.Options{Verbosity: 10})
	opts := factory.Options{Namespaces: []string{ns}}
	opts.Reflector.WatchErrorHandler = func(_ context.Context, err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	opts.Transform = func(o runtime.Object) (runtime.Object, error) {
		if f, ok := o.(*samplev1.Foo); ok && f.Name == "t" {
			mu.Lock()
			rejected++
			mu.Unlock()
			return o, fmt.Errorf("cannot transform %v", f)
		}
		return o, nil
	}
	f := informers.NewSharedInformerFactory(cfg, opts)
	foos := f.Samplecontroller().V1().Foos()
	queue := workqueue.New(workqueue.Options[string]{Name: "canary"})
	if _, err := foos.Informer().AddHandler(informer.HandlerFuncs[*samplev1.Foo]{
		AddFunc: func(o *samplev1.Foo, _ bool) {
			queue.Add(store.Key(o))
			if o.Name == "c" {
				mu.Lock()
				panics++
				mu.Unlock()
				panic(o)
			}
		},
	}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	r := crinformers.NewRunnable(f, crinformers.Options{Logger: logger})
	// The work queue logs through its ctx's logger, the informers through
	// the Runnable's: both are the one the test reads.
	runCtx, cancel := context.WithCancel(klog.NewContext(ctx, logger))
	var wg sync.WaitGroup
	wg.Go(func() { _ = r.Start(runCtx) })
	wg.Go(func() {
		_ = queue.Run(runCtx, 1, func(ctx context.Context, key string) error {
			o, err := foos.Lister().Foos(ns).Get(strings.TrimPrefix(key, ns+"/"))
			if err != nil {
				return nil
			}
			mu.Lock()
			reconciles++
			again := panicked[key]
			panicked[key] = true
			mu.Unlock()
			if !again && o.Name == "c" {
				panic(fmt.Errorf("reconcile of %v failed", o))
			}
			return nil
		})
	})
	defer func() {
		cancel()
		wg.Wait()
	}()

	var readyz []string
	checkReady := func(want string) func() error {
		return func() error {
			err := r.ReadyzCheck(nil)
			if err == nil {
				return fmt.Errorf("ready, want not ready with %q", want)
			}
			readyz = append(readyz, err.Error())
			if !strings.Contains(err.Error(), want) {
				return fmt.Errorf("readyz %q, want it to name %q", err, want)
			}
			return nil
		}
	}
	eventually(t, patience, "readyz naming the LIST's decode error", checkReady("decode"))
	corrupt.Store(false)
	eventually(t, patience, "readyz naming the transform's error", checkReady("transform"))
	if err := c.Delete(ctx, canaryFoo("t")); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "readyz once t is gone", func() error { return r.ReadyzCheck(nil) })
	if err := c.Create(ctx, canaryFoo("c")); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "the handler's and the reconcile's panics", func() error {
		mu.Lock()
		defer mu.Unlock()
		if panics == 0 || !panicked[ns+"/c"] {
			return fmt.Errorf("handler panics %d, reconciled c %v", panics, panicked[ns+"/c"])
		}
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "reconcile failed") }) {
			return fmt.Errorf("no reconcile failure logged yet")
		}
		return nil
	})
	cancel()
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if rejected == 0 || reconciles == 0 {
		t.Fatalf("transform errors %d, reconciles %d: every path must run", rejected, reconciles)
	}
	leaks := map[string]bool{}
	for _, s := range readyz {
		if strings.Contains(s, canary) {
			leaks["readyz: "+s] = true
		}
	}
	for _, err := range errs {
		if strings.Contains(err.Error(), canary) {
			leaks["error: "+err.Error()] = true
		}
	}
	for _, want := range []string{"handler panicked", "reconcile failed", "transform", "decode"} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("no log line holds %q: the test no longer sees that path", want)
		}
	}
	for _, l := range lines {
		if strings.Contains(l, canary) {
			leaks["log line: "+l] = true
		}
	}
	for _, l := range slices.Sorted(maps.Keys(leaks)) {
		t.Errorf("the canary reached %.600s", l)
	}
}
