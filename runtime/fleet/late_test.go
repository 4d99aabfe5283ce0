package fleet_test

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// TestWatchAfterEngage: a Watch registered while clusters run reaches each
// of them (late handlers get the cache as synthetic adds) and every
// cluster engaged later, with its own cluster name.
func TestWatchAfterEngage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleet(nil)
		mustEngage(t, fl, "a", newSource(widget("ns", "x", "")))
		_, stop := run(t, fl)
		defer stop()
		synctest.Wait()

		q := workqueue.New(workqueue.Options[fleet.Key]{})
		defer q.ShutDown()
		fleet.Watch(fl, widgets, fleet.Enqueue[*lwt.Widget](q), informer.HandlerOptions{})
		mustEngage(t, fl, "b", newSource(widget("other", "x", "")))
		synctest.Wait()
		if got, want := drain(q), []string{"a:ns/x", "b:other/x"}; !slices.Equal(got, want) {
			t.Fatalf("queued %v, want %v", got, want)
		}
	})
}

// TestDisengageDuringReplacement: disengaging a cluster whose replacement
// is still syncing stops both, and nothing is left.
func TestDisengageDuringReplacement(t *testing.T) {
	fl := newFleet(workqueue.New(workqueue.Options[fleet.Key]{}))
	mustEngage(t, fl, "a", newSource(widget("ns", "x", "")))
	ctx, stop := run(t, fl)
	defer stop()
	if err := fl.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	before := goleak.IgnoreCurrent()
	repl := newGated(newSource())
	mustEngage(t, fl, "a", repl)
	if !fl.Disengage("a") {
		t.Fatal("Disengage(a) = false")
	}
	if _, ok := fl.Cluster("a"); ok || len(fl.Clusters()) != 0 {
		t.Fatal("cluster a still engaged")
	}
	goleak.VerifyNone(t, before)
}

// TestReplacementThatFailsIsSwappedIn: a rotated kubeconfig whose
// credentials are refused (403) replaces the old cluster all the same, so
// its failure shows in LastError instead of an old credential serving on.
func TestReplacementThatFailsIsSwappedIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleet(workqueue.New(workqueue.Options[fleet.Key]{}))
		first, c, stop := reengage(t, fl, newSource(widget("ns", "x", "")), forbidden{})
		defer stop()
		if c == first || c.LastError() == nil || c.HasSynced() {
			t.Fatalf("after a refused replacement: swapped %v, LastError %v, synced %v", c != first, c.LastError(), c.HasSynced())
		}
	})
}

// TestReengageReadsAgainAfterTheSwap: while a replacement syncs, the old
// cluster serves reads, so a reconciler that reads an object the
// replacement's handler announced may find the old cache without it (here
// y, only on the new server) — and once the old cluster is stopped nothing
// would announce y again. After the swap every Watch handler gets the new
// cache once more (adds, as a handler registered late), so the last read of
// every object goes to the cluster that now serves.
func TestReengageReadsAgainAfterTheSwap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := fleet.New(fleet.Options[*widgetFactory]{NewFactory: newWidgetFactory})
		var mu sync.Mutex
		last := map[string]*fleet.Cluster[*widgetFactory]{} // name → the cluster its last read found it in (nil: not found)
		read := func(w *lwt.Widget) {
			c, ok := fl.Cluster("a")
			var in *fleet.Cluster[*widgetFactory]
			if ok {
				if _, exists := c.Factory().Widgets().Indexer().Get(store.Key(w)); exists {
					in = c
				}
			}
			mu.Lock()
			last[w.Name] = in
			mu.Unlock()
		}
		fleet.Watch(fl, widgets, func(string) informer.Handler[*lwt.Widget] {
			return informer.HandlerFuncs[*lwt.Widget]{
				AddFunc:    func(w *lwt.Widget, _ bool) { read(w) },
				UpdateFunc: func(_, w *lwt.Widget) { read(w) },
			}
		}, informer.HandlerOptions{})
		first, second, stop := reengage(t, fl, newSource(widget("ns", "x", "")), newSource(widget("ns", "x", ""), widget("ns", "y", "")))
		defer stop()
		if second == first {
			t.Fatal("the replacement was not swapped in")
		}
		mu.Lock()
		defer mu.Unlock()
		for _, name := range []string{"x", "y"} {
			if last[name] != second {
				t.Errorf("the last read of %s found it in %v, want the replacement that serves now", name, last[name])
			}
		}
	})
}

// reengage engages cluster "a" of fl over lw, runs fl until synced, then
// engages "a" again over replacement and waits until the bubble is idle. It
// returns the cluster before and after, and what stops fl.
func reengage(t *testing.T, fl *fleet.Fleet[*widgetFactory], lw, replacement reflector.ListerWatcher[*lwt.Widget]) (before, after *fleet.Cluster[*widgetFactory], stop func()) {
	mustEngage(t, fl, "a", lw)
	ctx, stop := run(t, fl)
	if err := fl.WaitForCacheSync(ctx); err != nil {
		stop()
		t.Fatal(err)
	}
	before = cluster(t, fl, "a")
	mustEngage(t, fl, "a", replacement)
	synctest.Wait()
	return before, cluster(t, fl, "a"), stop
}
