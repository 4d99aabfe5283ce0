package informer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// union is what a multi-namespace informer must hold: every source's objects.
func union(srcs ...*runtimetest.Source[CM]) map[string]CM {
	out := map[string]CM{}
	for _, s := range srcs {
		maps.Copy(out, s.Snapshot())
	}
	return out
}

func cacheRVs(inf *informer.Informer[CM]) string {
	got := map[string]string{}
	for _, o := range inf.Indexer().List() {
		got[store.Key(o)] = o.ResourceVersion
	}
	return fmt.Sprint(got)
}

// waitUnion waits until rec holds exactly the objects of every source.
func waitUnion(t *testing.T, rec *runtimetest.Recorder[CM], srcs ...*runtimetest.Source[CM]) {
	t.Helper()
	want := union(srcs...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := rec.WaitFor(ctx, func(got map[string]CM) bool { return runtimetest.SameResourceVersions(got, want) }); err != nil {
		t.Fatalf("handler did not converge to the sources: %v", err)
	}
	if err := rec.Err(); err != nil {
		t.Fatalf("handler contract violated: %v", err)
	}
}

// abInformer is an informer of namespaces a and b over their own sources.
func abInformer(a, b *runtimetest.Source[CM]) *informer.Informer[CM] {
	return informer.NewMultiNamespace(map[string]reflector.ListerWatcher[CM]{
		"a": a,
		"b": b,
	}, informer.Options[CM]{Reflector: reflector.Options{Name: "configmaps.v1"}})
}

// Two namespaces behind one informer: one cache and one event stream; a 410
// relist in namespace a tombstones a's vanished objects and leaves b alone.
func TestMultiNamespaceOneCacheIndependentRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("a", "x"), cm("a", "y"))
		b := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("b", "x"))
		inf := abInformer(a, b)
		rec, reg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		waitSynced(t, inf, reg)
		waitUnion(t, rec, a, b)
		if got, want := inf.LastSyncResourceVersion(), "a="+a.ResourceVersion()+",b="+b.ResourceVersion(); got != want {
			t.Fatalf("LastSyncResourceVersion = %q, want %q", got, want)
		}

		must(b.Add(cm("b", "z")))
		waitUnion(t, rec, a, b)
		n := len(rec.Events())
		bLists, bWatches := b.Calls()

		a.FailNext("watch", apierrors.NewServiceUnavailable("down"))
		a.DropWatches()
		synctest.Wait() // a's Reflector waits out its backoff
		must(a.Delete(cm("a", "x")))
		must(a.Update(cm("a", "y", "2")))
		a.Compact()
		waitUnion(t, rec, a, b)
		equal(t, "events of a's relist", evs(rec, n), []string{"delete a/x@1 fsu", "update a/y@4"})
		if got, want := cacheRVs(inf), fmt.Sprint(rvs(union(a, b))); got != want {
			t.Fatalf("cache = %v, want %v", got, want)
		}
		if lists, watches := b.Calls(); lists != bLists || watches != bWatches {
			t.Fatalf("namespace b: %d lists and %d watches during a's relist, want none (a's relist is a's business)", lists-bLists, watches-bWatches)
		}
	})
}

// The informer is synced only when every namespace is, and its LastError
// names the namespace that fails.
func TestMultiNamespaceSyncWaitsForEveryNamespace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("a", "x"))
		b := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("b", "x"))
		forbidden := apierrors.NewForbidden(resource, "", errors.New("no RBAC in b"))
		for range 3 {
			b.FailNext("list", forbidden)
			b.FailNext("watch", forbidden)
		}
		inf := abInformer(a, b)
		rec, reg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := informer.WaitForCacheSync(ctx, inf)
		cancel()
		if err == nil || inf.HasSynced() {
			t.Fatalf("synced (%v) while namespace b cannot be listed", err)
		}
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `namespace "b"`) {
			t.Fatalf("WaitForCacheSync = %v, want the 403 of namespace \"b\"", err)
		}
		if le := inf.LastError(); le == nil || strings.Contains(le.Error(), `namespace "a"`) {
			t.Fatalf("LastError = %v, want b's error only", le)
		}

		waitSynced(t, inf, reg) // b's failures run out; its backoff ends
		waitUnion(t, rec, a, b)
		if le := inf.LastError(); le != nil {
			t.Fatalf("LastError = %v after both namespaces listed", le)
		}
	})
}

func TestNewMultiNamespaceRejectsBadSources(t *testing.T) {
	src := runtimetest.NewSource[CM](runtimetest.SourceOptions{Resource: resource})
	for name, sources := range map[string]map[string]reflector.ListerWatcher[CM]{
		"none": nil,
		"all":  {"": src},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			informer.NewMultiNamespace(sources, informer.Options[CM]{})
		})
	}
}

// TestMultiNamespaceForeignObjectLogged: a watch event the server sends
// outside the informer's namespaces cannot move any namespace's
// resourceVersion (a relist holding one is refused by the FIFO); that is
// logged once through Run's logger (naming the namespace, not the object),
// not dropped in silence, and the informer goes on.
func TestMultiNamespaceForeignObjectLogged(t *testing.T) {
	logs, logger := recordLogs()
	a := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("a", "x"))
	b := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("b", "y"))
	inf := abInformer(a, b)
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	waitSynced(t, inf)
	for _, o := range []CM{cm("elsewhere", "stray-1"), cm("elsewhere", "stray-2"), cm("a", "after")} {
		if _, err := a.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	for {
		if _, ok := inf.Indexer().Get("a/after"); ok {
			break
		}
		select {
		case <-wctx.Done():
			t.Fatal("the event after the strays never reached the cache")
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	found := logs.matching("outside the informer's namespaces")
	if len(found) != 1 {
		t.Fatalf("lines about objects outside the namespaces: %q, want one", found)
	}
	if !strings.Contains(found[0], "elsewhere") {
		t.Errorf("line %s does not name the namespace", found[0])
	}
	if strings.Contains(found[0], "stray") {
		t.Errorf("line %s names the object", found[0])
	}
}
