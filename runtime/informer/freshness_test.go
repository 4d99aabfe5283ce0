package informer_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// TestStoreResourceVersionNeverAhead: while the pop loop is stuck applying
// an event (an index func blocks), the Reflector has seen that event and a
// bookmark after it, but the cache's own resourceVersion stays at what a
// Lister returns; once the event is applied, the bookmark moves it on.
// Reporting the Reflector's resourceVersion as the store's (what a KEP-5647
// consumer reads) fails here.
func TestStoreResourceVersionNeverAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a", "1"))
		block := make(chan struct{})
		var unblock sync.Once
		release := func() { unblock.Do(func() { close(block) }) }
		defer release() // also when the test fails while blocked
		var blocked atomic.Bool
		inf := newInformer(src, informer.Options[CM]{Indexers: store.Indexers[CM]{
			"v": func(o CM) ([]string, error) {
				if o.Data["v"] == "2" && blocked.CompareAndSwap(false, true) {
					<-block
				}
				return nil, nil
			},
		}})
		_, reg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		waitSynced(t, inf, reg)
		synced := inf.LastStoreSyncResourceVersion()
		if synced != src.ResourceVersion() {
			t.Fatalf("after sync LastStoreSyncResourceVersion = %q, want the list's %q", synced, src.ResourceVersion())
		}
		upd := must(src.Update(cm("ns", "a", "2")))
		src.Bookmark()
		synctest.Wait() // the pop loop is blocked in the index func
		if got := inf.LastSyncResourceVersion(); got != src.ResourceVersion() {
			t.Fatalf("Reflector's resourceVersion = %q, want %q (it saw the event and the bookmark)", got, src.ResourceVersion())
		}
		if got := inf.LastStoreSyncResourceVersion(); got != synced {
			t.Fatalf("store's resourceVersion = %q while the update at %s is not applied, want %q", got, upd.ResourceVersion, synced)
		}
		// (No Get here: the blocked index func holds the cache's write
		// lock, as a write in progress does.)
		if ok, err := inf.Indexer().HasReached("", upd.ResourceVersion); ok || err != nil {
			t.Fatalf("HasReached(%s) = %v, %v while not applied", upd.ResourceVersion, ok, err)
		}
		release()
		synctest.Wait()
		if got := inf.LastStoreSyncResourceVersion(); got != src.ResourceVersion() {
			t.Fatalf("after the bookmark was applied, store's resourceVersion = %q, want %q", got, src.ResourceVersion())
		}
	})
}

// TestReadAfterStoreResourceVersion: readers racing the pop loop never read
// an object older than its version at the resourceVersion they saw just
// before. (Reading the Reflector's resourceVersion instead fails this.)
func TestReadAfterStoreResourceVersion(t *testing.T) {
	src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a", "0"))
	inf := newInformer(src, informer.Options[CM]{})
	_, reg := addRecorder(t, inf, informer.HandlerOptions{})
	run(t, inf)
	waitSynced(t, inf, reg)
	lister := store.NewLister(inf.Indexer(), resource).Namespace("ns")
	var stop atomic.Bool
	var hmu sync.Mutex
	var history []string // a's resourceVersions, in order
	var stale atomic.Int64
	var last atomic.Value
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for !stop.Load() {
				rv := inf.LastStoreSyncResourceVersion()
				o, err := lister.Get("a")
				if err != nil {
					stale.Add(1)
					last.Store(err.Error())
					continue
				}
				// The version of a at rv is its newest update at or
				// before rv (bookmarks move rv past a's own).
				want := ""
				hmu.Lock()
				for _, u := range history {
					if c, _ := store.CompareResourceVersions(u, rv); c <= 0 {
						want = u
					}
				}
				hmu.Unlock()
				if c, err := store.CompareResourceVersions(o.ResourceVersion, want); want != "" && (err != nil || c < 0) {
					stale.Add(1)
					last.Store("read a@" + o.ResourceVersion + " after the store reported " + rv + ", which includes a@" + want)
				}
			}
		})
	}
	var rv string
	for n := 1; n <= 500; n++ {
		rv = must(src.Update(cm("ns", "a", strconv.Itoa(n)))).ResourceVersion
		hmu.Lock()
		history = append(history, rv)
		hmu.Unlock()
		if n%50 == 0 {
			src.Bookmark()
		}
	}
	if err := inf.WaitForResourceVersion(t.Context(), "ns", rv); err != nil {
		t.Fatalf("waiting for %s: %v (store at %q)", rv, err, inf.LastStoreSyncResourceVersion())
	}
	stop.Store(true)
	wg.Wait()
	if n := stale.Load(); n > 0 {
		t.Fatalf("%d reads older than the store's resourceVersion; last: %v", n, last.Load())
	}
	if o, _ := lister.Get("a"); o.Data["v"] != "500" {
		t.Fatalf("after waiting for %s the cache holds v=%s", rv, o.Data["v"])
	}
}

// TestMultiNamespaceStoreResourceVersion: one resourceVersion per
// namespace; the informer's is the oldest; a wait for one namespace needs
// only that namespace's events.
func TestMultiNamespaceStoreResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Two sources stand for two namespaces of one server: b's
		// resourceVersions run ahead of a's.
		a := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("a", "x"))
		b := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("b", "x"), cm("b", "y"), cm("b", "z"))
		inf := abInformer(a, b)
		_, reg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		waitSynced(t, inf, reg)
		c := inf.Indexer()
		if got, want := c.NamespaceResourceVersion("a"), a.ResourceVersion(); got != want {
			t.Fatalf("a's = %q, want %q", got, want)
		}
		if got, want := c.NamespaceResourceVersion("b"), b.ResourceVersion(); got != want {
			t.Fatalf("b's = %q, want %q", got, want)
		}
		if got, want := inf.LastStoreSyncResourceVersion(), a.ResourceVersion(); got != want {
			t.Fatalf("informer's = %q, want the oldest, a's %q", got, want)
		}
		done := make(chan error, 1)
		target := strconv.Itoa(mustAtoi(t, b.ResourceVersion()) + 1)
		go func() { done <- inf.WaitForResourceVersion(t.Context(), "a", target) }()
		synctest.Wait()
		must(b.Update(cm("b", "x", "2"))) // b moves, a does not
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("wait for a@%s returned %v on an event in b", target, err)
		default:
		}
		a.Bookmark()
		a.Bookmark()
		a.Bookmark()
		a.Bookmark() // a at 5 > b's 4
		if err := <-done; err != nil {
			t.Fatalf("wait for a@%s: %v", target, err)
		}
		if err := inf.WaitForResourceVersion(t.Context(), "c", "1"); !errors.Is(err, store.ErrUnknownNamespace) {
			t.Fatalf("wait in an unwatched namespace: %v", err)
		}
	})
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWaitForResourceVersionEndsWithCtx: a wait the cache never satisfies
// returns ctx's error and leaves nothing behind (goleak checks goroutines).
func TestWaitForResourceVersionEndsWithCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"))
		inf := newInformer(src, informer.Options[CM]{})
		_, reg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		waitSynced(t, inf, reg)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- inf.WaitForResourceVersion(ctx, "", "1000") }()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("wait returned %v", err)
		}
	})
}
