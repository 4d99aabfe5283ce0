package freshness_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/freshness"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

type metrics struct {
	mu                           sync.Mutex
	deferred, waited, uncompared []string
}

func (m *metrics) Deferred(r string) { m.mu.Lock(); m.deferred = append(m.deferred, r); m.mu.Unlock() }
func (m *metrics) Waited(r string, d time.Duration) {
	m.mu.Lock()
	m.waited = append(m.waited, r)
	m.mu.Unlock()
}
func (m *metrics) NotComparable(r string) {
	m.mu.Lock()
	m.uncompared = append(m.uncompared, r)
	m.mu.Unlock()
}

func newCache(namespaces ...string) (*store.Writer[*corev1.Pod], freshness.Resource) {
	w := store.New(store.Options[*corev1.Pod]{Namespaces: namespaces})
	return w, freshness.Resource{Name: "pods", Cache: w.Indexer()}
}

func at(ns, rv string) metav1.Object {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p", ResourceVersion: rv}}
}

func TestDeferUntilTheCacheHasTheWrite(t *testing.T) {
	w, pods := newCache()
	m := &metrics{}
	tr := &freshness.Tracker[string]{Metrics: m}
	var requeued []string
	requeue := func(k string) { requeued = append(requeued, k) }

	if tr.Defer("k", requeue) {
		t.Fatal("a key with no write recorded is deferred")
	}
	if n := testing.AllocsPerRun(100, func() { tr.Defer("k", requeue) }); n != 0 {
		t.Errorf("Defer of a key nobody wrote for allocates %v times", n)
	}
	if err := w.SetResourceVersion("", "3"); err != nil {
		t.Fatal(err)
	}
	must(t, tr.Wrote("k", pods, at("ns", "5")))
	must(t, tr.Wrote("k", pods, at("ns", "4"))) // older: changes nothing
	if !tr.Defer("k", requeue) {
		t.Fatal("cache at 3, write at 5: not deferred")
	}
	if !tr.Defer("k", requeue) { // woken by an event meanwhile: still deferred
		t.Fatal("second Defer before the cache caught up: not deferred")
	}
	must(t, w.SetResourceVersion("", "4"))
	if len(requeued) != 0 {
		t.Fatalf("requeued at 4: %v", requeued)
	}
	must(t, w.SetResourceVersion("", "5"))
	if !slices.Equal(requeued, []string{"k"}) {
		t.Fatalf("after the cache reached 5, requeued %v, want [k] once", requeued)
	}
	if tr.Defer("k", requeue) || tr.Pending() != 0 {
		t.Fatalf("after catching up: still deferred, or %d pending", tr.Pending())
	}
	if !slices.Equal(m.deferred, []string{"pods"}) || !slices.Equal(m.waited, []string{"pods"}) {
		t.Fatalf("metrics: deferred %v waited %v, want one each", m.deferred, m.waited)
	}
}

// TestDeferWaitsForEveryResourceAndNamespace: writes to two caches, one of
// them per namespace, are waited for in turn.
func TestDeferWaitsForEveryResourceAndNamespace(t *testing.T) {
	podsW, pods := newCache("a", "b")
	cmsW, cms := newCache()
	tr := &freshness.Tracker[string]{}
	requeues := 0
	requeue := func(string) { requeues++ }
	must(t, tr.Wrote("k", pods, at("a", "10")))
	must(t, tr.Wrote("k", cms, at("x", "7")))
	must(t, podsW.SetResourceVersion("b", "20")) // another namespace: irrelevant
	if !tr.Defer("k", requeue) {
		t.Fatal("not deferred")
	}
	must(t, podsW.SetResourceVersion("a", "10"))
	if requeues != 1 || !tr.Defer("k", requeue) {
		t.Fatalf("after pods caught up: %d requeues; want 1 and still deferred for configmaps", requeues)
	}
	must(t, cmsW.SetResourceVersion("", "8"))
	if requeues != 2 || tr.Defer("k", requeue) {
		t.Fatalf("after both caught up: %d requeues, want 2 and not deferred", requeues)
	}
}

func TestNotComparableIsNeverWaitedFor(t *testing.T) {
	w, pods := newCache()
	m := &metrics{}
	tr := &freshness.Tracker[string]{Metrics: m}
	if err := tr.Wrote("k", pods, at("ns", "abc")); !errors.Is(err, store.ErrNotComparable) {
		t.Fatalf("Wrote with a malformed resourceVersion: %v", err)
	}
	if tr.Pending() != 0 {
		t.Fatal("a malformed write was recorded")
	}
	must(t, tr.Wrote("k", pods, at("ns", "5")))
	must(t, w.SetResourceVersion("", "opaque")) // the cache's cannot be ordered
	if tr.Defer("k", func(string) { t.Error("requeued") }) {
		t.Fatal("deferred on a comparison that cannot be made")
	}
	if !slices.Equal(m.uncompared, []string{"pods"}) {
		t.Fatalf("NotComparable reported %v", m.uncompared)
	}
}

func TestForgetCancelsTheRequeue(t *testing.T) {
	w, pods := newCache()
	tr := &freshness.Tracker[string]{}
	must(t, tr.Wrote("k", pods, at("ns", "5")))
	if !tr.Defer("k", func(string) { t.Error("requeued after Forget") }) {
		t.Fatal("not deferred")
	}
	tr.Forget("k")
	must(t, w.SetResourceVersion("", "9"))
	if tr.Pending() != 0 {
		t.Fatal("pending after Forget")
	}
}

// TestReconcilerWithWorkqueue: the wrapper holds a key back until the cache
// has its write, then the requeue runs it; no reconcile ever sees the cache
// older than the key's last write.
func TestReconcilerWithWorkqueue(t *testing.T) {
	w, pods := newCache()
	must(t, w.SetResourceVersion("", "1"))
	q := workqueue.New(workqueue.Options[string]{Name: "test"})
	tr := &freshness.Tracker[string]{}
	var mu sync.Mutex
	var seen []string // cache resourceVersion at each reconcile
	ran := make(chan struct{}, 10)
	reconcile := func(_ context.Context, key string) error {
		mu.Lock()
		seen = append(seen, w.Indexer().ResourceVersion())
		mu.Unlock()
		ran <- struct{}{}
		return nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- q.Run(ctx, 2, tr.Reconciler(q.Add, reconcile)) }()

	q.Add("k")
	<-ran
	must(t, tr.Wrote("k", pods, at("ns", "7"))) // the reconcile's write
	q.Add("k")                                  // an event for k arrives before the write is applied
	must(t, w.SetResourceVersion("", "6"))
	must(t, w.SetResourceVersion("", "7"))
	<-ran
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, []string{"1", "7"}) {
		t.Fatalf("reconciles saw the cache at %v, want [1 7]: the second must wait for the write at 7", seen)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
