package fifo_test

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
)

// TestBookmarkFollowsTheDeltasBeforeIt: a bookmark reaches the consumer with
// (or after) every delta queued before it, never ahead of one.
func TestBookmarkFollowsTheDeltasBeforeIt(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{MaxBatch: 2})
	mustOK(t, f.Replace(nil, "1"))
	mustOK(t, f.Add(cm("ns", "a", "2")))
	mustOK(t, f.Bookmark("3"))
	mustOK(t, f.Add(cm("ns", "b", "4")))
	mustOK(t, f.Add(cm("ns", "c", "5")))
	mustOK(t, f.Add(cm("ns", "d", "6")))
	mustOK(t, f.Bookmark("7"))
	mustOK(t, f.Bookmark("8")) // replaces 7, still queued behind d
	if n := f.Len(); n != 4 {
		t.Fatalf("Len = %d, want 4 (bookmarks are not deltas)", n)
	}
	b, evs := popOne(t, f)
	mustEqual(t, evs, []ev{{fifo.Added, "ns/a", "2", false}})
	if b.ResourceVersion != "3" || b.Atomic {
		t.Fatalf("first batch: ResourceVersion %q Atomic %v, want 3 false", b.ResourceVersion, b.Atomic)
	}
	b, evs = popOne(t, f) // MaxBatch 2: b, c
	mustEqual(t, evs, []ev{{fifo.Added, "ns/b", "4", false}, {fifo.Added, "ns/c", "5", false}})
	if b.ResourceVersion != "" {
		t.Fatalf("second batch ResourceVersion %q, want none (the bookmark is behind d)", b.ResourceVersion)
	}
	b, evs = popOne(t, f)
	mustEqual(t, evs, []ev{{fifo.Added, "ns/d", "6", false}})
	if b.ResourceVersion != "8" {
		t.Fatalf("third batch ResourceVersion %q, want 8", b.ResourceVersion)
	}
	if n := f.Len(); n != 0 {
		t.Fatalf("Len = %d after draining", n)
	}
	mustOK(t, f.Bookmark("9"))
	b, evs = popOne(t, f)
	if len(evs) != 0 || b.ResourceVersion != "9" {
		t.Fatalf("a lone bookmark popped as %v rv %q", evs, b.ResourceVersion)
	}
	f.Close()
	if err := f.Bookmark("10"); !errors.Is(err, fifo.ErrClosed) {
		t.Fatalf("Bookmark after Close: %v", err)
	}
}

func TestPartitionBookmarkCarriesItsNamespace(t *testing.T) {
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Namespaces: []string{"a", "b"}})
	if err := f.Bookmark("1"); !errors.Is(err, fifo.ErrPartitioned) {
		t.Fatalf("FIFO.Bookmark on a partitioned FIFO: %v", err)
	}
	mustOK(t, f.Namespace("a").Replace([]*corev1.ConfigMap{cm("a", "x", "2")}, "2"))
	mustOK(t, f.Namespace("b").Bookmark("5")) // before b's first list: counts toward the population
	mustOK(t, f.Namespace("a").Bookmark("6"))
	mustOK(t, f.Namespace("b").Replace(nil, "7"))
	b, _ := popOne(t, f)
	if !b.Atomic || b.Namespace != "a" || b.ResourceVersion != "2" {
		t.Fatalf("relist of a: Atomic %v Namespace %q rv %q", b.Atomic, b.Namespace, b.ResourceVersion)
	}
	b, _ = popOne(t, f)
	if b.Namespace != "b" || b.ResourceVersion != "5" {
		t.Fatalf("bookmark of b: Namespace %q rv %q", b.Namespace, b.ResourceVersion)
	}
	if f.HasSynced() {
		t.Fatal("synced with a's bookmark, part of the initial population, not popped")
	}
	b, _ = popOne(t, f) // a's bookmark is not merged into b's
	if b.Namespace != "a" || b.ResourceVersion != "6" {
		t.Fatalf("bookmark of a: Namespace %q rv %q", b.Namespace, b.ResourceVersion)
	}
	if !f.HasSynced() {
		t.Fatal("not synced once everything queued up to b's (empty) relist was popped")
	}
}

// A Mark (Listed) reaches the consumer as Batch.Listed after every delta
// queued before it, merged with a Bookmark right beside it, and carries the
// partition's namespace as its Source.
func TestListedFollowsTheDeltasBeforeIt(t *testing.T) {
	trig := relist.NewTrigger()
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{})
	mustOK(t, f.Replace([]*corev1.ConfigMap{cm("ns", "a", "1")}, "1"))
	mustOK(t, f.Listed(relist.Mark{Trigger: trig, Gen: 3}))
	mustOK(t, f.Add(cm("ns", "b", "2")))
	mustOK(t, f.Bookmark("4"))
	mustOK(t, f.Listed(relist.Mark{Trigger: trig, Gen: 4}))
	b, evs := popOne(t, f)
	if !b.Atomic || b.Listed != nil || len(evs) != 1 {
		t.Fatalf("the list's batch: Atomic %v Listed %v, %d deltas; want true, none (it follows), 1", b.Atomic, b.Listed, len(evs))
	}
	b, evs = popOne(t, f)
	if len(evs) != 0 || b.Listed == nil || b.Listed.Gen != 3 || b.Listed.Trigger != trig {
		t.Fatalf("after the list: %d deltas, Listed %+v; want the mark of generation 3 alone", len(evs), b.Listed)
	}
	b, evs = popOne(t, f)
	mustEqual(t, evs, []ev{{fifo.Added, "ns/b", "2", false}})
	if b.ResourceVersion != "4" || b.Listed == nil || b.Listed.Gen != 4 {
		t.Fatalf("b's batch: rv %q Listed %+v; want 4 and the mark of generation 4 merged with the bookmark", b.ResourceVersion, b.Listed)
	}

	p := fifo.New(fifo.Options[*corev1.ConfigMap]{Namespaces: []string{"a", "b"}})
	if err := p.Listed(relist.Mark{Trigger: trig}); !errors.Is(err, fifo.ErrPartitioned) {
		t.Fatalf("FIFO.Listed on a partitioned FIFO: %v", err)
	}
	mustOK(t, p.Namespace("b").Listed(relist.Mark{Trigger: trig, Gen: 7}))
	b, _ = popOne(t, p)
	if b.Listed == nil || b.Listed.Source != "b" || b.Listed.Gen != 7 {
		t.Fatalf("partition b's mark: %+v, want Source b, generation 7", b.Listed)
	}
	p.Close()
	if err := p.Namespace("a").Listed(relist.Mark{Trigger: trig}); !errors.Is(err, fifo.ErrClosed) {
		t.Fatalf("Listed after Close: %v", err)
	}
}
