package controllerruntime_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/freshness"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// heldLW is a ListerWatcher over a Source whose watch events for which held
// returns true wait for release: the server has made the write, the cache
// has not seen it (a lagging watch). Reads of the cache do not block.
type heldLW struct {
	*runtimetest.Source[*corev1.ConfigMap]
	held    func(watch.Event) bool
	release chan struct{}
}

func (l *heldLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	in, err := l.Source.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	w := &heldWatch{in: in, out: make(chan watch.Event), stop: make(chan struct{}), done: make(chan struct{})}
	go w.run(l.held, l.release)
	return w, nil
}

type heldWatch struct {
	in   watch.Interface
	out  chan watch.Event
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func (w *heldWatch) run(held func(watch.Event) bool, release <-chan struct{}) {
	defer close(w.done)
	defer close(w.out)
	for {
		select {
		case ev, ok := <-w.in.ResultChan():
			if !ok {
				return
			}
			if held(ev) {
				select {
				case <-release:
				case <-w.stop:
					return
				}
			}
			select {
			case w.out <- ev:
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}

func (w *heldWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.in.Stop()
		<-w.done
	})
}

func (w *heldWatch) ResultChan() <-chan watch.Event { return w.out }

// freshnessCounts counts the Tracker's metrics hooks.
type freshnessCounts struct{ deferred, waited, notComparable atomic.Int64 }

func (c *freshnessCounts) Deferred(string)              { c.deferred.Add(1) }
func (c *freshnessCounts) Waited(string, time.Duration) { c.waited.Add(1) }
func (c *freshnessCounts) NotComparable(string)         { c.notComparable.Add(1) }

// TestOwnWritesDefersUntilTheCacheHasTheWrite runs a controller-runtime
// controller (controller.NewTypedUnmanaged, its own queue and workers) over
// our informer, its reconciler wrapped by OwnWrites. The reconciler writes
// the object once; the watch then holds that write back, and the request is
// queued again meanwhile (as another object's event would). The wrapper
// does not call the reconciler while the cache lacks the write — it defers
// the request — and the request is reconciled again once the cache has it,
// reading the written version: no reconcile reads a version older than the
// controller's own last write.
func TestOwnWritesDefersUntilTheCacheHasTheWrite(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a safety net, not a speed check
	defer cancel()
	src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: configMapType.Resource.GroupResource()},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Data: map[string]string{"v": "0"}})
	lw := &heldLW{Source: src, release: make(chan struct{}),
		held: func(ev watch.Event) bool { return ev.Object.(*corev1.ConfigMap).Data["v"] == "1" }}
	noWL := false
	inf := informer.New[*corev1.ConfigMap](lw, informer.Options[*corev1.ConfigMap]{Reflector: reflector.Options{WatchList: &noWL}})
	res := freshness.Resource{Name: "configmaps", Cache: inf.Indexer()}
	counts := &freshnessCounts{}
	ow := crinformers.NewOwnWrites(&freshness.Tracker[reconcile.Request]{Metrics: counts})

	type seen struct{ v, rv string }
	var mu sync.Mutex
	var reconciles []seen
	var wroteRV string
	wrote := make(chan struct{})
	inner := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		cm, ok := inf.Indexer().Get(req.String())
		if !ok {
			return reconcile.Result{}, fmt.Errorf("%s not in the cache", req)
		}
		mu.Lock()
		reconciles = append(reconciles, seen{cm.Data["v"], cm.ResourceVersion})
		first := wroteRV == ""
		mu.Unlock()
		if !first {
			return reconcile.Result{}, nil
		}
		cm = cm.DeepCopy()
		cm.Data["v"] = "1"
		upd, err := src.Update(cm) // the server's answer to the controller's write
		if err != nil {
			return reconcile.Result{}, err
		}
		if err := ow.Tracker().Wrote(req, res, upd); err != nil {
			return reconcile.Result{}, err
		}
		mu.Lock()
		wroteRV = upd.ResourceVersion
		mu.Unlock()
		close(wrote)
		return reconcile.Result{}, nil
	})
	c, err := controller.NewTypedUnmanaged("ownwrites", controller.TypedOptions[reconcile.Request]{
		Reconciler:         ow.Reconciler(inner),
		SkipNameValidation: ptr.To(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	queues := make(chan workqueue.TypedRateLimitingInterface[reconcile.Request], 1)
	for _, s := range []source.TypedSource[reconcile.Request]{
		crinformers.Kind(inf, &handler.TypedEnqueueRequestForObject[*corev1.ConfigMap]{}),
		ow,
		source.TypedFunc[reconcile.Request](func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
			queues <- q // to queue the request as another object's event would
			return nil
		}),
	} {
		if err := c.Watch(s); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { _ = inf.Run(ctx) })
	wg.Go(func() {
		if err := c.Start(ctx); err != nil && ctx.Err() == nil {
			t.Errorf("controller Start: %v", err)
		}
	})
	q := <-queues
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "a"}}

	select {
	case <-wrote:
	case <-ctx.Done():
		t.Fatal("the first reconcile never wrote")
	}
	// The watch holds the write back; the request comes round again.
	q.Add(req)
	waitFor(ctx, t, "the request deferred", func() string {
		if counts.deferred.Load() >= 1 {
			return ""
		}
		return fmt.Sprintf("deferred %d times", counts.deferred.Load())
	})
	mu.Lock()
	if len(reconciles) != 1 {
		t.Errorf("reconciler called %d times while the cache lacked the write, want once (the write itself): %v", len(reconciles), reconciles)
	}
	mu.Unlock()

	close(lw.release)
	waitFor(ctx, t, "a reconcile after the cache applied the write", func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(reconciles) >= 2 {
			return ""
		}
		return fmt.Sprintf("reconciles %v", reconciles)
	})
	mu.Lock()
	for n, r := range reconciles[1:] {
		if !atLeast(t, r.rv, wroteRV) || r.v != "1" {
			t.Errorf("reconcile %d read v=%s at %s, older than the controller's own write at %s", n+2, r.v, r.rv, wroteRV)
		}
	}
	mu.Unlock()
	if counts.waited.Load() != 1 || counts.notComparable.Load() != 0 {
		t.Errorf("metrics: waited %d, not comparable %d; want 1 and 0", counts.waited.Load(), counts.notComparable.Load())
	}
	if n := ow.Tracker().Pending(); n != 0 {
		t.Errorf("Tracker().Pending() = %d after the cache caught up, want 0", n)
	}
}

// waitFor waits until cond returns "" or ctx ends (then fails with what cond
// last returned).
func waitFor(ctx context.Context, t *testing.T, what string, cond func() string) {
	t.Helper()
	for {
		last := cond()
		if last == "" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not reached; last seen: %s", what, last)
		case <-time.After(time.Millisecond):
		}
	}
}
