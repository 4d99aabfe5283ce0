package fifo_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
)

// A relist's codec asks the FIFO's Lookup for the objects the consumer holds
// (runtime/internal/known). Replace then queues the cached object as it is:
// Transform ran when it was first queued, and running it again could write
// into an object readers are reading. Every other object is transformed.
func TestReplaceQueuesLookupsObjectsUntransformed(t *testing.T) {
	k := newKnown()
	transformed := map[*corev1.ConfigMap]int{}
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: k, Transform: func(o *corev1.ConfigMap) (*corev1.ConfigMap, error) {
		transformed[o]++
		return o, nil
	}})
	if f.Lookup() != nil {
		t.Fatal("Lookup before the first Replace: want nil (an empty cache knows nothing)")
	}
	a, b := cm("ns", "a", "1"), cm("ns", "b", "1")
	if err := f.Replace([]*corev1.ConfigMap{a, b}, "1"); err != nil {
		t.Fatal(err)
	}
	pop := func() fifo.Batch[*corev1.ConfigMap] {
		var got fifo.Batch[*corev1.ConfigMap]
		if err := f.Pop(context.Background(), func(b fifo.Batch[*corev1.ConfigMap]) error {
			k.apply(b)
			got = b
			got.Deltas = append([]fifo.Delta[*corev1.ConfigMap](nil), b.Deltas...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	pop()

	l := f.Lookup()
	if l == nil {
		t.Fatal("Lookup after the first Replace: nil")
	}
	if got, ok := l([]byte("ns"), []byte("a"), []byte("1")); !ok || got != a {
		t.Fatalf("Lookup(ns/a@1) = %v, %v: want the cached object", got, ok)
	}
	if _, ok := l([]byte("ns"), []byte("b"), []byte("2")); ok {
		t.Fatal("Lookup(ns/b@2) found ns/b@1: a resourceVersion the cache does not hold must miss")
	}
	if _, ok := l([]byte("ns"), []byte("c"), []byte("1")); ok {
		t.Fatal("Lookup of a key the cache does not hold found one")
	}

	// The relist: a as the Lookup handed it out, b changed (decoded anew).
	b2 := cm("ns", "b", "2")
	if err := f.Replace([]*corev1.ConfigMap{a, b2}, "2"); err != nil {
		t.Fatal(err)
	}
	got := pop()
	if len(got.Deltas) != 2 || got.Deltas[0].Object != a || got.Deltas[1].Object != b2 || got.Deltas[0].Type != fifo.Replaced {
		t.Fatalf("relist deltas %v", got.Deltas)
	}
	if transformed[a] != 1 || transformed[b2] != 1 {
		t.Errorf("Transform ran %d times on the cached a (want 1: when first queued) and %d on the new b (want 1)", transformed[a], transformed[b2])
	}
}
