package fifo_test

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
)

// A namespace's relist tombstones only that namespace's vanished keys: keys
// of another namespace (known or pending) and keys whose namespace name is a
// prefix of this one ("a" vs "ab") are untouched.
func TestPartitionReplaceTombstonesOnlyItsNamespace(t *testing.T) {
	k := newKnown(cm("a", "x", "1"), cm("a", "y", "1"), cm("ab", "x", "1"), cm("b", "x", "1"))
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: k, Namespaces: []string{"a", "ab", "b"}})
	mustOK(t, f.Add(cm("b", "new", "2"))) // pending in b
	mustOK(t, f.Add(cm("a", "new", "2"))) // pending in a
	mustOK(t, f.Namespace("a").Replace([]*corev1.ConfigMap{cm("a", "y", "10")}, "10"))

	_, got := popOne(t, f)
	mustEqual(t, got, []ev{{fifo.Added, "b/new", "2", false}, {fifo.Added, "a/new", "2", false}})
	b, got := popOne(t, f)
	if !b.Atomic || b.ResourceVersion != "10" {
		t.Fatalf("relist of a: Atomic=%v RV=%q, want true, 10", b.Atomic, b.ResourceVersion)
	}
	mustEqual(t, got, []ev{
		{fifo.Deleted, "a/new", "2", true},
		{fifo.Deleted, "a/x", "1", true},
		{fifo.Replaced, "a/y", "10", false},
	})
}

// The initial population is complete only once every namespace has had its
// first Replace; what was queued until then is initial.
func TestPartitionHasSyncedWaitsForEveryNamespace(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown(), Namespaces: []string{"a", "b"}})
	mustOK(t, f.Namespace("a").Replace([]*corev1.ConfigMap{cm("a", "x", "1")}, "1"))
	mustOK(t, f.Add(cm("a", "y", "2"))) // a's watch runs while b still lists
	b, _ := popOne(t, f)
	if !b.InitialList {
		t.Fatal("a's relist not InitialList")
	}
	b, _ = popOne(t, f)
	if !b.InitialList {
		t.Fatal("an event queued before every namespace listed is not InitialList")
	}
	if f.HasSynced() {
		t.Fatal("HasSynced before namespace b had its first Replace")
	}
	mustOK(t, f.Namespace("b").Replace(nil, "3")) // empty: queues nothing
	if !f.HasSynced() {
		t.Fatal("HasSynced false after every namespace replaced and everything was popped")
	}
}

func TestPartitionRejectsForeignObjectsAndWholeFIFOCalls(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown(cm("a", "x", "1")), Namespaces: []string{"a"}})
	if err := f.Namespace("a").Replace([]*corev1.ConfigMap{cm("a", "x", "2"), cm("b", "y", "2")}, "2"); err == nil {
		t.Fatal("a relist of namespace a holding b/y was accepted")
	}
	if f.Len() != 0 {
		t.Fatalf("a refused relist queued %d deltas", f.Len())
	}
	if err := f.Replace(nil, "3"); !errors.Is(err, fifo.ErrPartitioned) {
		t.Fatalf("Replace on a partitioned FIFO: %v, want ErrPartitioned", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Namespace of an unknown namespace did not panic")
		}
	}()
	f.Namespace("b")
}

// When the last namespace's first relist arrives while another namespace's
// batch is being processed, that in-flight batch still counts toward the
// initial population: the FIFO must not report synced when it is done, and
// the last relist must still be popped as initial.
func TestPartitionPopulationCountsTheBatchInFlight(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown(), Namespaces: []string{"a", "b"}})
	mustOK(t, f.Namespace("a").Replace([]*corev1.ConfigMap{cm("a", "x", "1")}, "1"))
	mustOK(t, f.Pop(t.Context(), func(fifo.Batch[*corev1.ConfigMap]) error {
		return f.Namespace("b").Replace([]*corev1.ConfigMap{cm("b", "y", "2")}, "2")
	}))
	if f.HasSynced() {
		t.Fatal("HasSynced while b's first relist is still queued")
	}
	b, got := popOne(t, f)
	mustEqual(t, got, []ev{{fifo.Replaced, "b/y", "2", false}})
	if !b.InitialList {
		t.Fatal("b's first relist popped as not InitialList")
	}
	if !f.HasSynced() {
		t.Fatal("HasSynced false after every namespace's first relist was processed")
	}
}

// The same without partitions: a delta queued before the first Replace and
// in flight when it arrives is part of the initial population.
func TestFirstReplaceWhileADeltaIsInFlight(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown()})
	mustOK(t, f.Add(cm("ns", "early", "1")))
	mustOK(t, f.Pop(t.Context(), func(fifo.Batch[*corev1.ConfigMap]) error {
		return f.Replace([]*corev1.ConfigMap{cm("ns", "x", "2")}, "2")
	}))
	if f.HasSynced() {
		t.Fatal("HasSynced while the first relist is still queued")
	}
	if b, _ := popOne(t, f); !b.InitialList {
		t.Fatal("the first relist popped as not InitialList")
	}
	if !f.HasSynced() {
		t.Fatal("HasSynced false after the first relist was processed")
	}
}
