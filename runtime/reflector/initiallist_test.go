package reflector

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// TestInitialListIndexesOnlyOutOfOrder: a WatchList's initial events in key
// order (as kube-apiserver sends them) build the list without an index; any
// other sequence of ADDED, MODIFIED and DELETED events (repeats, keys out of
// order, deletions of kept and of unknown keys) ends with what a map of the
// last event per key holds.
func TestInitialListIndexesOnlyOutOfOrder(t *testing.T) {
	cmOf := func(ns, name string, v int) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: strconv.Itoa(v)}}
	}
	var ordered initialList[*corev1.ConfigMap]
	// Key order, not namespace-then-name order: "a-b/y" < "a/x".
	for i, k := range [][2]string{{"a-b", "y"}, {"a", "x"}, {"ns-1", "p"}, {"ns-1", "p0"}, {"ns-10", "p"}} {
		ordered.apply(watch.Added, cmOf(k[0], k[1], i))
	}
	ordered.apply(watch.Deleted, cmOf("ns-2", "gone", 9)) // above every key: nothing to remove
	if ordered.index != nil {
		t.Errorf("an index was built for initial events in key order")
	}
	if got, want := keysOf(ordered.items), []string{"a-b/y", "a/x", "ns-1/p", "ns-1/p0", "ns-10/p"}; !slices.Equal(got, want) {
		t.Errorf("items = %q, want %q", got, want)
	}

	r := rand.New(rand.NewPCG(3, 4))
	for round := range 2000 {
		var l initialList[*corev1.ConfigMap]
		model := map[string]*corev1.ConfigMap{}
		rising := r.IntN(2) == 0 // keys that rise, now and then repeating the last one
		k := 0
		for i := range r.IntN(12) {
			ns, name := []string{"", "a", "a-b"}[r.IntN(3)], strconv.Itoa(r.IntN(6))
			if rising {
				k += r.IntN(4) / 3 // 0 (the same key again) a quarter of the time
				ns, name = "a", strconv.Itoa(100+k)
			}
			typ := []watch.EventType{watch.Added, watch.Added, watch.Modified, watch.Deleted}[r.IntN(4)]
			o := cmOf(ns, name, i)
			l.apply(typ, o)
			if typ == watch.Deleted {
				delete(model, store.Key(o))
			} else {
				model[store.Key(o)] = o
			}
		}
		if len(l.items) != len(model) {
			t.Fatalf("round %d: %d items %q, want %d", round, len(l.items), keysOf(l.items), len(model))
		}
		for _, it := range l.items {
			if model[store.Key(it)] != it {
				t.Fatalf("round %d: item %s (rv %s) is not the last event's object for its key", round, store.Key(it), it.ResourceVersion)
			}
		}
	}
}

func keysOf(items []*corev1.ConfigMap) []string {
	var out []string
	for _, it := range items {
		out = append(out, store.Key(it))
	}
	return out
}
