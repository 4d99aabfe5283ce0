package store_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/store"
)

func TestCompareResourceVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
		err  bool
	}{
		{"9", "10", -1, false},
		{"10", "10", 0, false},
		{"123456789012345678901234567890", "99", 1, false},
		{"", "1", 0, true},
		{"01", "1", 0, true},
		{"0", "1", 0, true},
		{"1", "abc", 0, true},
		{"a=1,b=2", "1", 0, true},
	} {
		got, err := store.CompareResourceVersions(tc.a, tc.b)
		if tc.err {
			if !errors.Is(err, store.ErrNotComparable) {
				t.Errorf("Compare(%q, %q) error = %v, want ErrNotComparable", tc.a, tc.b, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Compare(%q, %q) = %d, %v; want %d", tc.a, tc.b, got, err, tc.want)
		}
	}
}

func TestResourceVersionAdvancesOnly(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{})
	ix := w.Indexer()
	if rv := ix.ResourceVersion(); rv != "" {
		t.Fatalf("empty cache ResourceVersion = %q", rv)
	}
	if ok, err := ix.HasReached("", "5"); ok || err != nil {
		t.Fatalf("empty cache HasReached(5) = %v, %v; want false, nil", ok, err)
	}
	mustSet(t, w, "", "10")
	mustSet(t, w, "", "9") // older: ignored
	if rv := ix.ResourceVersion(); rv != "10" {
		t.Fatalf("ResourceVersion = %q, want 10 (an older one must not move it back)", rv)
	}
	for rv, want := range map[string]bool{"9": true, "10": true, "11": false, "100": false} {
		if ok, err := ix.HasReached("any-namespace", rv); ok != want || err != nil {
			t.Errorf("HasReached(%s) = %v, %v; want %v", rv, ok, err, want)
		}
	}
	if _, err := ix.HasReached("", "x1"); !errors.Is(err, store.ErrNotComparable) {
		t.Errorf("HasReached(x1) error = %v, want ErrNotComparable", err)
	}
	// A resourceVersion that cannot be ordered replaces the recorded one:
	// comparisons then fail explicitly instead of answering from a stale one.
	mustSet(t, w, "", "opaque")
	if _, err := ix.HasReached("", "10"); !errors.Is(err, store.ErrNotComparable) {
		t.Errorf("after an opaque resourceVersion, HasReached error = %v, want ErrNotComparable", err)
	}
	mustSet(t, w, "", "12")
	if ok, err := ix.HasReached("", "11"); !ok || err != nil {
		t.Errorf("after 12, HasReached(11) = %v, %v", ok, err)
	}
}

func mustSet[T store.Object[T]](t *testing.T, w *store.Writer[T], ns, rv string) {
	t.Helper()
	if err := w.SetResourceVersion(ns, rv); err != nil {
		t.Fatalf("SetResourceVersion(%q, %q): %v", ns, rv, err)
	}
}

// TestPartitionedResourceVersion: each namespace has its own; the whole
// cache's is the oldest, and only once every namespace has one.
func TestPartitionedResourceVersion(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{Namespaces: []string{"a", "b"}})
	ix := w.Indexer()
	mustSet(t, w, "a", "20")
	if rv := ix.ResourceVersion(); rv != "" {
		t.Fatalf("ResourceVersion with b not synced = %q, want \"\"", rv)
	}
	if rv := ix.NamespaceResourceVersion("a"); rv != "20" {
		t.Fatalf("a's = %q", rv)
	}
	mustSet(t, w, "b", "15")
	if rv := ix.ResourceVersion(); rv != "15" {
		t.Fatalf("ResourceVersion = %q, want the oldest, 15", rv)
	}
	if ok, _ := ix.HasReached("a", "18"); !ok {
		t.Error("a has applied 20 but HasReached(a, 18) is false")
	}
	if ok, _ := ix.HasReached("b", "18"); ok {
		t.Error("b has applied 15 but HasReached(b, 18) is true")
	}
	if ok, _ := ix.HasReached("", "18"); ok {
		t.Error("the whole cache is at 15 but HasReached(\"\", 18) is true")
	}
	if _, err := ix.HasReached("c", "1"); !errors.Is(err, store.ErrUnknownNamespace) {
		t.Errorf("HasReached(c) error = %v, want ErrUnknownNamespace", err)
	}
	if err := w.SetResourceVersion("c", "1"); !errors.Is(err, store.ErrUnknownNamespace) {
		t.Errorf("SetResourceVersion(c) error = %v, want ErrUnknownNamespace", err)
	}
	mustSet(t, w, "b", "bogus")
	if rv := ix.ResourceVersion(); rv != "" {
		t.Errorf("ResourceVersion with an uncomparable namespace = %q, want \"\"", rv)
	}
	if _, err := ix.HasReached("", "1"); !errors.Is(err, store.ErrNotComparable) {
		t.Errorf("HasReached over uncomparable namespaces: error = %v, want ErrNotComparable", err)
	}
}

// TestAfterResourceVersion: callbacks fire once, in the writer's call, only
// when reached; stop prevents them; errors register nothing.
func TestAfterResourceVersion(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{Namespaces: []string{"a", "b"}})
	c := w.Indexer()
	var fired []string
	after := func(ns, rv string) func() bool {
		t.Helper()
		waiting, stop, err := c.AfterResourceVersion(ns, rv, func() { fired = append(fired, ns+"@"+rv) })
		if err != nil || !waiting {
			t.Fatalf("AfterResourceVersion(%q, %q) = %v, %v", ns, rv, waiting, err)
		}
		return stop
	}
	after("a", "5")
	after("a", "7")
	after("b", "5")
	after("", "6")
	stopped := after("a", "6")
	if !stopped() || stopped() {
		t.Fatal("stop: want true once, then false")
	}
	mustSet(t, w, "a", "6")
	if got := join(fired); got != "a@5" {
		t.Fatalf("after a=6 fired %q, want a@5", got)
	}
	mustSet(t, w, "b", "9")
	if got := join(fired); got != "a@5 b@5 @6" {
		t.Fatalf("after b=9 fired %q, want a@5 b@5 @6", got)
	}
	mustSet(t, w, "a", "8")
	if got := join(fired); got != "a@5 b@5 @6 a@7" {
		t.Fatalf("after a=8 fired %q", got)
	}
	if waiting, _, err := c.AfterResourceVersion("a", "8", func() { t.Error("called") }); waiting || err != nil {
		t.Errorf("already reached: waiting %v, err %v", waiting, err)
	}
	if _, _, err := c.AfterResourceVersion("a", "08", func() {}); !errors.Is(err, store.ErrNotComparable) {
		t.Errorf("bad rv: err %v", err)
	}
	if _, _, err := c.AfterResourceVersion("zz", "8", func() {}); !errors.Is(err, store.ErrUnknownNamespace) {
		t.Errorf("unknown namespace: err %v", err)
	}
}

func join(s []string) string {
	out := ""
	for n, x := range s {
		if n > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func TestWaitForResourceVersion(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{})
	ix := w.Indexer()

	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error)
	go func() { errc <- ix.WaitForResourceVersion(ctx, "", "5") }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait returned %v", err)
	}

	go func() { errc <- ix.WaitForResourceVersion(t.Context(), "ns", "5") }()
	// Whether the waiter registered yet or not, it must return once 5 is
	// applied: registering after sees it reached, before gets woken.
	mustSet(t, w, "", "4")
	mustSet(t, w, "", "5")
	if err := <-errc; err != nil {
		t.Fatalf("wait returned %v", err)
	}
	if err := ix.WaitForResourceVersion(t.Context(), "", "nope"); !errors.Is(err, store.ErrNotComparable) {
		t.Fatalf("bad rv: %v", err)
	}
	// A cancelled waiter left nothing behind: a later write calls nobody
	// (the waiter list is empty, so the write allocates nothing).
	if n := testing.AllocsPerRun(100, func() { _ = w.SetResourceVersion("", "6") }); n != 0 {
		t.Errorf("SetResourceVersion allocates %v times with nobody waiting", n)
	}
}

// TestReadAfterResourceVersionSeesIt is the guarantee: once the cache's
// resourceVersion is r, a read returns the object at r or newer. A writer
// updates one object and then records its resourceVersion, as the informer
// does; readers read the resourceVersion, then the object.
func TestReadAfterResourceVersionSeesIt(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{})
	ix := w.Indexer()
	lister := store.NewLister(ix, schema.GroupResource{Resource: "pods"}).Namespace("ns")
	const writes = 3000
	var done atomic.Bool
	var wg sync.WaitGroup
	var bad atomic.Int64
	var lastBad atomic.Value
	for range 3 {
		wg.Go(func() {
			for !done.Load() {
				rv := ix.ResourceVersion()
				if rv == "" {
					continue
				}
				p, err := lister.Get("p")
				if err != nil {
					bad.Add(1)
					lastBad.Store("not found at " + rv)
					continue
				}
				if c, _ := store.CompareResourceVersions(p.ResourceVersion, rv); c < 0 {
					bad.Add(1)
					lastBad.Store("read " + p.ResourceVersion + " after the cache reported " + rv)
				}
			}
		})
	}
	for n := 1; n <= writes; n++ {
		p := pod("ns", "p", "", nil)
		p.ResourceVersion = strconv.Itoa(n)
		w.Set("ns/p", p)
		mustSet(t, w, "", p.ResourceVersion)
	}
	done.Store(true)
	wg.Wait()
	if bad.Load() > 0 {
		t.Fatalf("%d stale reads, last: %v", bad.Load(), lastBad.Load())
	}
}

func TestListerGetAtLeast(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{})
	lister := store.NewLister(w.Indexer(), schema.GroupResource{Resource: "pods"})
	got := make(chan string)
	go func() {
		p, err := lister.Namespace("ns").GetAtLeast(t.Context(), "p", "7")
		if err != nil {
			got <- err.Error()
			return
		}
		got <- p.ResourceVersion
	}()
	for n := 5; n <= 8; n++ {
		p := pod("ns", "p", "", nil)
		p.ResourceVersion = strconv.Itoa(n)
		w.Set("ns/p", p)
		mustSet(t, w, "", p.ResourceVersion)
	}
	if rv := <-got; rv != "7" && rv != "8" {
		t.Fatalf("GetAtLeast(7) returned %s", rv)
	}
	w.Delete("ns/p")
	mustSet(t, w, "", "9")
	if _, err := lister.Namespace("ns").GetAtLeast(t.Context(), "p", "9"); !apierrors.IsNotFound(err) {
		t.Fatalf("GetAtLeast after a delete at 9: %v, want NotFound", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := lister.GetAtLeast(ctx, "p", "10"); !errors.Is(err, context.Canceled) {
		t.Fatalf("GetAtLeast with a cancelled ctx: %v", err)
	}
}

// TestSetResourceVersionAllocatesNothing: the informer calls
// SetResourceVersion after every batch it applies, so advancing the
// resourceVersion must not allocate when nobody waits, nor when others wait
// for a resourceVersion not reached yet (their waiters stay, nothing fires),
// for a single and a partitioned cache.
func TestSetResourceVersionAllocatesNothing(t *testing.T) {
	const runs = 200
	rvs := make([]string, 2*runs+10)
	for n := range rvs {
		rvs[n] = strconv.Itoa(n + 1)
	}
	for _, tc := range []struct {
		name       string
		namespaces []string
		ns         string
	}{{"single", nil, ""}, {"partitioned", []string{"a", "b"}, "a"}} {
		t.Run(tc.name, func(t *testing.T) {
			w := store.New(store.Options[*corev1.Pod]{Namespaces: tc.namespaces})
			next := 0
			advance := func() {
				if err := w.SetResourceVersion(tc.ns, rvs[next]); err != nil {
					t.Fatal(err)
				}
				next++
			}
			if n := testing.AllocsPerRun(runs/2, advance); n != 0 {
				t.Errorf("SetResourceVersion allocates %v times per call with nobody waiting", n)
			}
			var fired atomic.Int64
			waiting, stop, err := w.Indexer().AfterResourceVersion(tc.ns, "1000000", func() { fired.Add(1) })
			if err != nil || !waiting {
				t.Fatalf("AfterResourceVersion(1000000) = %v, %v", waiting, err)
			}
			defer stop()
			if n := testing.AllocsPerRun(runs/2, advance); n != 0 {
				t.Errorf("SetResourceVersion allocates %v times per call while another resourceVersion is waited for", n)
			}
			if fired.Load() != 0 {
				t.Fatal("a waiter for 1000000 fired early")
			}
		})
	}
}

// BenchmarkSetResourceVersion is the cost the informer adds per applied
// batch (one call per watch event in steady state): advancing the cache's
// resourceVersion with nobody waiting, and with a waiter for a
// resourceVersion not reached yet.
func BenchmarkSetResourceVersion(b *testing.B) {
	rvs := make([]string, 1<<16)
	for n := range rvs {
		rvs[n] = strconv.Itoa(1_000_000 + n)
	}
	for _, waiter := range []bool{false, true} {
		b.Run(fmt.Sprintf("waiter=%v", waiter), func(b *testing.B) {
			w := store.New(store.Options[*corev1.Pod]{})
			if waiter {
				_, stop, err := w.Indexer().AfterResourceVersion("", "999999999999", func() {})
				if err != nil {
					b.Fatal(err)
				}
				defer stop()
			}
			b.ReportAllocs()
			base := 0
			for n := 0; b.Loop(); n++ {
				if n%len(rvs) == 0 && n > 0 {
					// Start over above the last: resourceVersions only advance.
					b.StopTimer()
					base += len(rvs)
					for k := range rvs {
						rvs[k] = strconv.Itoa(1_000_000 + base + k)
					}
					b.StartTimer()
				}
				_ = w.SetResourceVersion("", rvs[n%len(rvs)])
			}
		})
	}
}
