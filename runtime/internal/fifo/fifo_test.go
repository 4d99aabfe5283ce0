package fifo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
)

func cm(ns, name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: v},
	}
}

// known is a minimal KnownObjects: a locked map.
type known struct {
	mu sync.Mutex
	m  map[string]*corev1.ConfigMap
}

func newKnown(objs ...*corev1.ConfigMap) *known {
	k := &known{m: map[string]*corev1.ConfigMap{}}
	for _, o := range objs {
		k.m[o.Namespace+"/"+o.Name] = o
	}
	return k
}

func (k *known) Get(key string) (*corev1.ConfigMap, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	o, ok := k.m[key]
	return o, ok
}

func (k *known) ListKeys() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	keys := make([]string, 0, len(k.m))
	for key := range k.m {
		keys = append(keys, key)
	}
	return keys
}

// apply mirrors what the informer does with a batch.
func (k *known) apply(b fifo.Batch[*corev1.ConfigMap]) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, d := range b.Deltas {
		if d.Type == fifo.Deleted {
			delete(k.m, d.Key)
		} else {
			k.m[d.Key] = d.Object
		}
	}
}

// ev is a comparable summary of a delta.
type ev struct {
	Type fifo.DeltaType
	Key  string
	RV   string
	FSU  bool
}

func (e ev) String() string {
	s := fmt.Sprintf("%s %s@%s", e.Type, e.Key, e.RV)
	if e.FSU {
		s += " (tombstone)"
	}
	return s
}

func summarize(b fifo.Batch[*corev1.ConfigMap]) []ev {
	var out []ev
	for _, d := range b.Deltas {
		out = append(out, ev{d.Type, d.Key, d.Object.ResourceVersion, d.FinalStateUnknown})
	}
	return out
}

// popOne pops one batch without blocking (the test queued something first).
func popOne(t *testing.T, f *fifo.FIFO[*corev1.ConfigMap]) (b fifo.Batch[*corev1.ConfigMap], evs []ev) {
	t.Helper()
	err := f.Pop(t.Context(), func(got fifo.Batch[*corev1.ConfigMap]) error {
		b = got
		evs = summarize(got)
		b.Deltas = nil // not valid after process
		return nil
	})
	if err != nil {
		t.Fatalf("Pop: %v", err)
	}
	return b, evs
}

func mustEqual(t *testing.T, got, want []ev) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("deltas:\n got  %v\n want %v", got, want)
	}
}

func TestArrivalOrderAcrossKeys(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown()})
	mustOK(t, f.Add(cm("ns", "a", "1")))
	mustOK(t, f.Add(cm("ns", "b", "2")))
	mustOK(t, f.Update(cm("ns", "a", "3")))
	mustOK(t, f.Add(cm("", "c", "4")))
	mustOK(t, f.Delete(cm("ns", "b", "5")))
	mustOK(t, f.Update(cm("ns", "a", "6")))
	if got := f.Len(); got != 6 {
		t.Fatalf("Len = %d, want 6", got)
	}
	b, got := popOne(t, f)
	mustEqual(t, got, []ev{
		{fifo.Added, "ns/a", "1", false},
		{fifo.Added, "ns/b", "2", false},
		{fifo.Updated, "ns/a", "3", false},
		{fifo.Added, "c", "4", false},
		{fifo.Deleted, "ns/b", "5", false},
		{fifo.Updated, "ns/a", "6", false},
	})
	if b.Atomic || !b.InitialList {
		t.Fatalf("single deltas before any Replace: Atomic=%v InitialList=%v, want false, true (not synced yet)", b.Atomic, b.InitialList)
	}
	if got := f.Len(); got != 0 {
		t.Fatalf("Len after Pop = %d, want 0", got)
	}
}

func TestMaxBatchSplitsKeepingOrder(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown(), MaxBatch: 2})
	for i := range 5 {
		mustOK(t, f.Add(cm("ns", fmt.Sprint("k", i), fmt.Sprint(i))))
	}
	var all []ev
	var sizes []int
	for f.Len() > 0 {
		_, got := popOne(t, f)
		sizes = append(sizes, len(got))
		all = append(all, got...)
	}
	if !slices.Equal(sizes, []int{2, 2, 1}) {
		t.Fatalf("batch sizes = %v, want [2 2 1]", sizes)
	}
	for i, e := range all {
		if want := fmt.Sprint("ns/k", i); e.Key != want {
			t.Fatalf("delta %d is %v, want key %s", i, e, want)
		}
	}
}

func TestDeletionDedup(t *testing.T) {
	k := newKnown(cm("ns", "known", "1"))
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: k})
	mustOK(t, f.Add(cm("ns", "a", "1")))
	mustOK(t, f.Delete(cm("ns", "a", "2")))
	mustOK(t, f.Delete(cm("ns", "a", "3")))     // right after a Deleted: dropped
	mustOK(t, f.Delete(cm("ns", "never", "4"))) // neither pending nor known: dropped
	mustOK(t, f.Delete(cm("ns", "known", "5"))) // known: kept
	mustOK(t, f.Delete(cm("ns", "known", "6"))) // dup: dropped
	mustOK(t, f.Add(cm("ns", "a", "7")))        // recreated
	mustOK(t, f.Delete(cm("ns", "a", "8")))     // a new deletion: kept
	_, got := popOne(t, f)
	mustEqual(t, got, []ev{
		{fifo.Added, "ns/a", "1", false},
		{fifo.Deleted, "ns/a", "2", false},
		{fifo.Deleted, "ns/known", "5", false},
		{fifo.Added, "ns/a", "7", false},
		{fifo.Deleted, "ns/a", "8", false},
	})
	// Once processed, nothing is pending: a Delete of a key the consumer
	// dropped is dropped too.
	k.mu.Lock()
	delete(k.m, "ns/known")
	k.mu.Unlock()
	mustOK(t, f.Delete(cm("ns", "known", "9")))
	if f.Len() != 0 {
		t.Fatalf("Len = %d after deleting an unknown key, want 0", f.Len())
	}
}

func TestReplaceTombstonesAndReplaced(t *testing.T) {
	// Known: a, b, c (the consumer's cache). Pending: an update of d (not
	// known yet), a delete of c. Relist returns a (changed) and e (new).
	k := newKnown(cm("ns", "a", "1"), cm("ns", "b", "1"), cm("ns", "c", "1"))
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: k})
	mustOK(t, f.Update(cm("ns", "d", "2")))
	mustOK(t, f.Delete(cm("ns", "c", "3")))
	mustOK(t, f.Replace([]*corev1.ConfigMap{cm("ns", "a", "10"), cm("ns", "e", "10")}, "10"))
	if got := f.Len(); got != 2+4 {
		t.Fatalf("Len = %d, want 6", got)
	}

	b, got := popOne(t, f)
	if b.Atomic || !b.InitialList {
		t.Fatalf("first batch: Atomic=%v InitialList=%v, want false, true", b.Atomic, b.InitialList)
	}
	mustEqual(t, got, []ev{
		{fifo.Updated, "ns/d", "2", false},
		{fifo.Deleted, "ns/c", "3", false},
	})
	if f.HasSynced() {
		t.Fatal("HasSynced before the relist batch was processed")
	}

	b, got = popOne(t, f)
	if !b.Atomic || !b.InitialList || b.ResourceVersion != "10" {
		t.Fatalf("relist batch: Atomic=%v InitialList=%v RV=%q, want true, true, 10", b.Atomic, b.InitialList, b.ResourceVersion)
	}
	mustEqual(t, got, []ev{
		// b vanished while disconnected: tombstone with Known's object.
		{fifo.Deleted, "ns/b", "1", true},
		// d was only pending: tombstone with the pending object.
		{fifo.Deleted, "ns/d", "2", true},
		// c: its pending delta is a Deleted already, so no tombstone.
		{fifo.Replaced, "ns/a", "10", false},
		{fifo.Replaced, "ns/e", "10", false},
	})
	if !f.HasSynced() {
		t.Fatal("HasSynced false after the relist batch was processed")
	}

	mustOK(t, f.Add(cm("ns", "z", "11")))
	b, _ = popOne(t, f)
	if b.InitialList {
		t.Fatal("a delta after the initial population has InitialList set")
	}
}

func TestReplaceTombstoneForKeyInFlight(t *testing.T) {
	// While the consumer processes Add(x) (not yet in Known), a relist
	// without x arrives: x must get a tombstone carrying the in-flight object.
	k := newKnown()
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: k})
	mustOK(t, f.Add(cm("ns", "x", "1")))
	err := f.Pop(t.Context(), func(b fifo.Batch[*corev1.ConfigMap]) error {
		if err := f.Replace(nil, "5"); err != nil {
			return err
		}
		k.apply(b)
		return nil
	})
	mustOK(t, err)
	b, got := popOne(t, f)
	if !b.Atomic {
		t.Fatal("relist batch not atomic")
	}
	mustEqual(t, got, []ev{{fifo.Deleted, "ns/x", "1", true}})
}

func TestHasSyncedEmptyFirstReplace(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown()})
	if f.HasSynced() {
		t.Fatal("HasSynced before the first Replace")
	}
	mustOK(t, f.Replace(nil, "1"))
	if !f.HasSynced() {
		t.Fatal("HasSynced false after an empty first Replace on an empty queue")
	}
	select {
	case <-f.Synced():
	default:
		t.Fatal("Synced channel not closed")
	}
	if f.Len() != 0 {
		t.Fatalf("an empty Replace queued %d deltas", f.Len())
	}
}

func TestHasSyncedCountsDeltasQueuedBeforeFirstReplace(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown()})
	mustOK(t, f.Add(cm("ns", "a", "1")))
	mustOK(t, f.Delete(cm("ns", "a", "2")))
	if f.HasSynced() {
		t.Fatal("HasSynced after Add/Delete before any Replace")
	}
	mustOK(t, f.Replace(nil, "3")) // adds nothing: a's newest delta is a Deleted
	if f.HasSynced() {
		t.Fatal("HasSynced while the deltas queued before the first Replace are unprocessed")
	}
	mustOK(t, f.Add(cm("ns", "b", "4"))) // after the initial population
	b, got := popOne(t, f)
	if !b.InitialList {
		t.Fatal("deltas queued before the first Replace not marked InitialList")
	}
	// The batch stops at the end of the initial population.
	mustEqual(t, got, []ev{{fifo.Added, "ns/a", "1", false}, {fifo.Deleted, "ns/a", "2", false}})
	if !f.HasSynced() {
		t.Fatal("HasSynced false after the initial population was processed")
	}
	b, got = popOne(t, f)
	if b.InitialList {
		t.Fatal("delta after the initial population marked InitialList")
	}
	mustEqual(t, got, []ev{{fifo.Added, "ns/b", "4", false}})
}

func TestHasSyncedOnlyAfterProcessReturns(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown()})
	mustOK(t, f.Replace([]*corev1.ConfigMap{cm("ns", "a", "1")}, "1"))
	mustOK(t, f.Pop(t.Context(), func(fifo.Batch[*corev1.ConfigMap]) error {
		if f.HasSynced() {
			t.Error("HasSynced during process of the initial batch")
		}
		return nil
	}))
	if !f.HasSynced() {
		t.Fatal("HasSynced false after process returned")
	}
}

func TestTransformBeforeQueueing(t *testing.T) {
	var calls int
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{
		Known: newKnown(),
		Transform: func(o *corev1.ConfigMap) (*corev1.ConfigMap, error) {
			calls++
			if o.Name == "bad" {
				return nil, errors.New("boom")
			}
			o.ManagedFields = nil
			o.Annotations = map[string]string{"transformed": "yes"}
			return o, nil
		},
		Name: "configmaps.v1",
	})
	in := cm("ns", "a", "1")
	in.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	mustOK(t, f.Add(in))
	mustOK(t, f.Replace([]*corev1.ConfigMap{cm("ns", "b", "2")}, "2"))
	err := f.Update(cm("ns", "bad", "3"))
	if err == nil || !strings.Contains(err.Error(), "ns/bad") || !strings.Contains(err.Error(), "configmaps.v1") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Update with failing transform: err = %v, want one naming the queue, the key and the cause", err)
	}
	err = f.Replace([]*corev1.ConfigMap{cm("ns", "c", "4"), cm("ns", "bad", "4")}, "4")
	if err == nil {
		t.Fatal("Replace with a failing transform returned nil")
	}
	var seen []string
	for f.Len() > 0 {
		mustOK(t, f.Pop(t.Context(), func(b fifo.Batch[*corev1.ConfigMap]) error {
			for _, d := range b.Deltas {
				if d.Object.Annotations["transformed"] != "yes" || d.Object.ManagedFields != nil {
					t.Errorf("%s %s queued untransformed", d.Type, d.Key)
				}
				seen = append(seen, d.Key)
			}
			return nil
		}))
	}
	// a, then the relist: a's tombstone (a is pending but not listed; it
	// carries the transformed pending object) and b. The failed Replace
	// queued nothing (not even c).
	if !slices.Equal(seen, []string{"ns/a", "ns/a", "ns/b"}) {
		t.Fatalf("queued keys = %v, want [ns/a ns/a ns/b]", seen)
	}
	if calls != 5 {
		t.Fatalf("transform calls = %d, want 5", calls)
	}
}

func TestPopBlocksUntilWorkOrCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown()})
		got := make(chan []ev, 1)
		popped := make(chan struct{})
		go func() {
			defer close(popped)
			err := f.Pop(context.Background(), func(b fifo.Batch[*corev1.ConfigMap]) error {
				got <- summarize(b)
				return nil
			})
			if err != nil {
				t.Errorf("Pop: %v", err)
			}
		}()
		synctest.Wait()
		select {
		case <-got:
			t.Fatal("Pop returned on an empty queue")
		default:
		}
		mustOK(t, f.Add(cm("ns", "a", "1")))
		mustEqual(t, <-got, []ev{{fifo.Added, "ns/a", "1", false}})
		<-popped // the first Pop has returned: the next is not concurrent with it

		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			errc <- f.Pop(ctx, func(fifo.Batch[*corev1.ConfigMap]) error {
				t.Error("process called on an empty queue")
				return nil
			})
		}()
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("Pop after cancel = %v, want context.Canceled", err)
		}
	})
}

func TestCloseDrainsThenErrClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown()})
		mustOK(t, f.Add(cm("ns", "a", "1")))
		f.Close()
		f.Close() // idempotent
		if err := f.Add(cm("ns", "b", "2")); !errors.Is(err, fifo.ErrClosed) {
			t.Fatalf("Add after Close = %v, want ErrClosed", err)
		}
		if err := f.Replace(nil, "2"); !errors.Is(err, fifo.ErrClosed) {
			t.Fatalf("Replace after Close = %v, want ErrClosed", err)
		}
		_, got := popOne(t, f)
		mustEqual(t, got, []ev{{fifo.Added, "ns/a", "1", false}})
		if err := f.Pop(context.Background(), nil); !errors.Is(err, fifo.ErrClosed) {
			t.Fatalf("Pop on closed empty FIFO = %v, want ErrClosed", err)
		}

		// A Pop waiting on an empty queue is released by Close.
		g := fifo.New(fifo.Options[*corev1.ConfigMap]{})
		errc := make(chan error, 1)
		go func() { errc <- g.Pop(context.Background(), nil) }()
		synctest.Wait()
		g.Close()
		if err := <-errc; !errors.Is(err, fifo.ErrClosed) {
			t.Fatalf("waiting Pop after Close = %v, want ErrClosed", err)
		}
	})
}

func TestConcurrentPopRefused(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown()})
	mustOK(t, f.Add(cm("ns", "a", "1")))
	mustOK(t, f.Add(cm("ns", "b", "1")))
	mustOK(t, f.Pop(t.Context(), func(fifo.Batch[*corev1.ConfigMap]) error {
		if err := f.Pop(t.Context(), func(fifo.Batch[*corev1.ConfigMap]) error { return nil }); !errors.Is(err, fifo.ErrConcurrentPop) {
			t.Errorf("nested Pop = %v, want ErrConcurrentPop", err)
		}
		return nil
	}))
}

func TestProcessErrorReturned(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown()})
	mustOK(t, f.Add(cm("ns", "a", "1")))
	boom := errors.New("boom")
	if err := f.Pop(t.Context(), func(fifo.Batch[*corev1.ConfigMap]) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Pop = %v, want the process error", err)
	}
	// The delta is consumed (no requeue) and the key is no longer pending.
	if f.Len() != 0 {
		t.Fatalf("Len = %d, want 0", f.Len())
	}
}

// TestConcurrentProducersKeepPerKeyOrder runs producers for disjoint key sets
// against one consumer and checks every delta arrives exactly once and, per
// key, in the order it was produced.
func TestConcurrentProducersKeepPerKeyOrder(t *testing.T) {
	k := newKnown()
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: k, MaxBatch: 7})
	const producers, keys, updates = 4, 10, 50
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for u := range updates {
				for i := range keys {
					o := cm(fmt.Sprint("p", p), fmt.Sprint("k", i), fmt.Sprint(u))
					var err error
					if u == 0 {
						err = f.Add(o)
					} else {
						err = f.Update(o)
					}
					if err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); f.Close(); close(done) }()
	last := map[string]int{}
	n := 0
	for {
		err := f.Pop(context.Background(), func(b fifo.Batch[*corev1.ConfigMap]) error {
			k.apply(b)
			for _, d := range b.Deltas {
				var v int
				fmt.Sscan(d.Object.ResourceVersion, &v)
				if prev, ok := last[d.Key]; ok && v != prev+1 {
					t.Errorf("key %s: version %d after %d", d.Key, v, prev)
				}
				last[d.Key] = v
				n++
			}
			return nil
		})
		if errors.Is(err, fifo.ErrClosed) {
			break
		}
		mustOK(t, err)
	}
	<-done
	if want := producers * keys * updates; n != want {
		t.Fatalf("popped %d deltas, want %d", n, want)
	}
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestNewestPendingAcrossRelistsAndSingles checks that "the newest pending
// delta of a key" looks through queued relists and single deltas in stream
// order, for tombstones, deletion dedup and resync.
func TestNewestPendingAcrossRelistsAndSingles(t *testing.T) {
	k := newKnown(cm("ns", "known", "1"))
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: k})
	mustOK(t, f.Replace([]*corev1.ConfigMap{cm("ns", "a", "2"), cm("ns", "b", "2"), cm("ns", "known", "2")}, "2"))
	mustOK(t, f.Update(cm("ns", "a", "3"))) // newer than a's Replaced
	mustOK(t, f.Delete(cm("ns", "b", "4"))) // b's newest is the relist's Replaced: kept
	mustOK(t, f.Delete(cm("ns", "b", "5"))) // now a Deleted is newest: dropped
	// A relist without a and b: a's tombstone carries the single's object;
	// b's newest is a Deleted, so no tombstone.
	mustOK(t, f.Replace([]*corev1.ConfigMap{cm("ns", "known", "6")}, "6"))
	mustOK(t, f.Delete(cm("ns", "known", "7"))) // newest: the second relist's Replaced
	var got []ev
	for f.Len() > 0 {
		_, evs := popOne(t, f)
		got = append(got, evs...)
	}
	mustEqual(t, got, []ev{
		{fifo.Replaced, "ns/a", "2", false},
		{fifo.Replaced, "ns/b", "2", false},
		{fifo.Replaced, "ns/known", "2", false},
		{fifo.Updated, "ns/a", "3", false},
		{fifo.Deleted, "ns/b", "4", false},
		{fifo.Deleted, "ns/a", "3", true},
		{fifo.Replaced, "ns/known", "6", false},
		{fifo.Deleted, "ns/known", "7", false},
	})
}
