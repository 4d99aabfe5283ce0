package fleet_test

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	"go.uber.org/goleak"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// run starts fl.Run and returns a func that stops it and checks it
// returned nil.
func run(t *testing.T, fl *fleet.Fleet[*widgetFactory]) (context.Context, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- fl.Run(ctx) }()
	return ctx, func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
}

func newFleet(q *workqueue.Queue[fleet.Key]) *fleet.Fleet[*widgetFactory] {
	fl := fleet.New(fleet.Options[*widgetFactory]{NewFactory: newWidgetFactory})
	if q != nil {
		fleet.Watch(fl, widgets, fleet.Enqueue[*lwt.Widget](q), informer.HandlerOptions{})
	}
	return fl
}

// drain takes every queued key (none being processed) and returns them sorted.
func drain(q *workqueue.Queue[fleet.Key]) []string {
	var keys []string
	for q.Len() > 0 {
		k, _ := q.Get()
		keys = append(keys, k.String())
		q.Done(k)
	}
	slices.Sort(keys)
	return keys
}

func mustEngage(t *testing.T, fl *fleet.Fleet[*widgetFactory], name string, lw reflector.ListerWatcher[*lwt.Widget]) {
	t.Helper()
	if err := fl.Engage(name, over(lw)); err != nil {
		t.Fatal(err)
	}
}

func cluster(t *testing.T, fl *fleet.Fleet[*widgetFactory], name string) *fleet.Cluster[*widgetFactory] {
	t.Helper()
	c, ok := fl.Cluster(name)
	if !ok {
		t.Fatalf("cluster %q not engaged", name)
	}
	return c
}

// TestFailingClustersDoNotDelayOthers: beside two healthy clusters, one
// answers 403 and one does not answer at all. The healthy ones sync with
// no (fake) time passing, their handlers queue cluster-qualified keys and
// keep delivering, their listers answer across the fleet; the fleet-wide
// wait reports the 403 and the silent one, and nothing else.
func TestFailingClustersDoNotDelayOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[fleet.Key]{})
		defer q.ShutDown()
		fl := newFleet(q)
		a := newSource(widget("ns", "a1", "n1"), widget("ns", "a2", "n2"))
		b := newSource(widget("ns", "b1", "n1"))
		hung := newGated(newSource(widget("ns", "h1", "n1")))
		mustEngage(t, fl, "a", a)
		mustEngage(t, fl, "b", b)
		mustEngage(t, fl, "forbidden", forbidden{})
		mustEngage(t, fl, "hung", hung)
		ctx, stop := run(t, fl)
		defer stop()

		start := time.Now()
		for _, name := range []string{"a", "b"} {
			if err := cluster(t, fl, name).WaitForCacheSync(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("healthy clusters synced after %v of fake time; want no wait at all", d)
		}
		if cluster(t, fl, "hung").HasSynced() || cluster(t, fl, "forbidden").HasSynced() {
			t.Fatal("a failing cluster reports synced")
		}

		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		err := fl.WaitForCacheSync(wctx)
		if err == nil || !apierrors.IsForbidden(err) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitForCacheSync = %v; want a 403 (forbidden) and a deadline (hung)", err)
		}
		for _, want := range []string{`cluster "forbidden"`, `cluster "hung"`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("WaitForCacheSync error %q does not name %s", err, want)
			}
		}
		for _, healthy := range []string{`cluster "a"`, `cluster "b"`} {
			if strings.Contains(err.Error(), healthy) {
				t.Errorf("WaitForCacheSync error %q names healthy %s", err, healthy)
			}
		}

		synctest.Wait()
		if got, want := drain(q), []string{"a:ns/a1", "a:ns/a2", "b:ns/b1"}; !slices.Equal(got, want) {
			t.Fatalf("queued %v, want %v", got, want)
		}
		if _, err := a.Add(widget("ns", "a3", "n1")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got, want := drain(q), []string{"a:ns/a3"}; !slices.Equal(got, want) {
			t.Fatalf("after an add in a, queued %v, want %v", got, want)
		}

		items, err := fleet.Collect(fl, func(c *fleet.Cluster[*widgetFactory]) ([]*lwt.Widget, error) {
			return c.Factory().Widgets().Indexer().ByIndex(nodeIndex, "n1")
		})
		var got []string
		for _, it := range items {
			got = append(got, it.Cluster+":"+it.Object.Name)
		}
		slices.Sort(got)
		if want := []string{"a:a1", "a:a3", "b:b1"}; !slices.Equal(got, want) {
			t.Fatalf("Collect(node n1) = %v, want %v", got, want)
		}
		if err == nil || !strings.Contains(err.Error(), `cluster "hung": not synced`) || !apierrors.IsForbidden(err) {
			t.Fatalf("Collect error = %v; want the forbidden and the hung cluster named", err)
		}

		// The silent server answers: its cluster syncs, and the fleet-wide
		// wait now reports only the 403.
		hung.open()
		err = fl.WaitForCacheSync(ctx)
		if err == nil || strings.Contains(err.Error(), "hung") || !strings.Contains(err.Error(), `cluster "forbidden"`) {
			t.Fatalf("after the hung cluster answered, WaitForCacheSync = %v; want only forbidden", err)
		}
		synctest.Wait()
		if got, want := drain(q), []string{"hung:ns/h1"}; !slices.Equal(got, want) {
			t.Fatalf("queued %v, want %v", got, want)
		}
	})
}

// TestWaitForCacheSyncReturnsOnFailure: "synced or failed" needs no
// deadline when a cluster fails, with a 403 or a set-up mistake.
func TestWaitForCacheSyncReturnsOnFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleet(nil)
		mustEngage(t, fl, "ok", newSource(widget("ns", "x", "")))
		mustEngage(t, fl, "forbidden", forbidden{})
		if err := fl.Engage("nosource", fleet.Endpoint{}); err != nil { // no rest.Config, no ListerWatcher
			t.Fatal(err)
		}
		fleet.Watch(fl, widgets, func(string) informer.Handler[*lwt.Widget] { return informer.HandlerFuncs[*lwt.Widget]{} }, informer.HandlerOptions{})
		ctx, stop := run(t, fl)
		defer stop()
		start := time.Now()
		err := fl.WaitForCacheSync(ctx)
		if !apierrors.IsForbidden(err) || !errors.Is(err, factory.ErrSetup) || !strings.Contains(err.Error(), "2 of 3 clusters") {
			t.Fatalf("WaitForCacheSync = %v; want cluster forbidden's 403 and cluster nosource's set-up mistake", err)
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("WaitForCacheSync took %v of fake time; a 403 settles at once", d)
		}
		if !cluster(t, fl, "ok").HasSynced() {
			t.Fatal("cluster ok not synced")
		}
	})
}

// TestDisengageLeavesNothingBehind: a disengaged cluster's goroutines are
// gone when Disengage returns, and its factory, informer and cached
// objects are garbage, while the other cluster keeps running.
func TestDisengageLeavesNothingBehind(t *testing.T) {
	q := workqueue.New(workqueue.Options[fleet.Key]{})
	defer q.ShutDown()
	fl := newFleet(q)
	mustEngage(t, fl, "stay", newSource(widget("ns", "s", "")))
	ctx, stop := run(t, fl)
	defer stop()
	if err := fl.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	before := goleak.IgnoreCurrent()

	src := newSource(widget("ns", "x", "n1"), widget("ns", "y", "n1"))
	mustEngage(t, fl, "gone", src)
	weaks := func() (weak.Pointer[fleet.Cluster[*widgetFactory]], weak.Pointer[informer.Informer[*lwt.Widget]], weak.Pointer[lwt.Widget]) {
		c := cluster(t, fl, "gone")
		if err := c.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		inf := c.Factory().Widgets()
		obj := inf.Indexer().List()[0]
		return weak.Make(c), weak.Make(inf), weak.Make(obj)
	}
	wc, wi, wo := weaks()

	if !fl.Disengage("gone") {
		t.Fatal("Disengage(gone) = false")
	}
	if _, ok := fl.Cluster("gone"); ok {
		t.Fatal("gone still engaged")
	}
	if fl.Disengage("gone") {
		t.Fatal("second Disengage(gone) = true")
	}
	goleak.VerifyNone(t, before)
	runtime.GC()
	runtime.GC()
	if wc.Value() != nil || wi.Value() != nil || wo.Value() != nil {
		t.Fatalf("after Disengage and GC: cluster live %v, informer live %v, cached object live %v; want all collected",
			wc.Value() != nil, wi.Value() != nil, wo.Value() != nil)
	}
	if !cluster(t, fl, "stay").HasSynced() {
		t.Fatal("cluster stay disturbed")
	}
	_ = src
}

// TestReengageServesOldUntilReplacementSyncs: a cluster engaged again (a
// rotated kubeconfig) keeps its old factory serving reads and events while
// the new one syncs; then the fleet swaps them, stops the old one, and the
// queue, shared by both, loses nothing.
func TestReengageServesOldUntilReplacementSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[fleet.Key]{})
		defer q.ShutDown()
		fl := newFleet(q)
		old := newSource(widget("ns", "x", ""))
		mustEngage(t, fl, "a", old)
		ctx, stop := run(t, fl)
		defer stop()
		if err := fl.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		first := cluster(t, fl, "a")
		regs := first.Factory().Widgets().Handlers()
		synctest.Wait()
		drain(q)

		repl := newGated(newSource(widget("ns", "x", ""), widget("ns", "y", "")))
		mustEngage(t, fl, "a", repl)
		synctest.Wait()
		if cluster(t, fl, "a") != first {
			t.Fatal("the replacement serves before it synced")
		}
		if _, err := old.Add(widget("ns", "z", "")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got, want := drain(q), []string{"a:ns/z"}; !slices.Equal(got, want) {
			t.Fatalf("while the replacement syncs, queued %v, want %v", got, want)
		}

		repl.open()
		synctest.Wait()
		second := cluster(t, fl, "a")
		if second == first || !second.HasSynced() {
			t.Fatalf("after the replacement synced: swapped %v, synced %v", second != first, second.HasSynced())
		}
		select {
		case <-regs[0].Stopped():
		default:
			t.Fatal("the old factory's handler still runs after the swap")
		}
		if got, want := drain(q), []string{"a:ns/x", "a:ns/y"}; !slices.Equal(got, want) {
			t.Fatalf("after the swap, queued %v, want %v (the replacement's initial list)", got, want)
		}
		if got := len(second.Factory().Widgets().Indexer().List()); got != 2 {
			t.Fatalf("the replacement caches %d objects, want 2", got)
		}
	})
}

// TestLifecycle: a cluster engaged before Run is not synced until Run
// starts it; Run twice is an error; Engage after Run returned is
// ErrStopped; an empty name is refused.
func TestLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleet(nil)
		if err := fl.Engage("", over(newSource())); err == nil {
			t.Fatal("Engage with an empty name succeeded")
		}
		mustEngage(t, fl, "pre", newSource())
		if cluster(t, fl, "pre").HasSynced() {
			t.Fatal("a cluster engaged before Run reports synced")
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- fl.Run(ctx) }()
		synctest.Wait()
		if !cluster(t, fl, "pre").HasSynced() {
			t.Fatal("a cluster engaged before Run not synced once Run started it")
		}
		if err := fl.Run(ctx); err == nil {
			t.Fatal("second Run succeeded")
		}
		mustEngage(t, fl, "a", newSource())
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if len(fl.Clusters()) != 0 {
			t.Fatal("clusters left after Run returned")
		}
		if err := fl.Engage("b", over(newSource())); !errors.Is(err, fleet.ErrStopped) {
			t.Fatalf("Engage after Run = %v, want ErrStopped", err)
		}
	})
}
