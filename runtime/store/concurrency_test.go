package store_test

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// TestBatchIsAtomicForReaders has a writer rewrite every object with a new
// generation in one Batch per generation (deleting and re-adding half of them
// on the way) while readers check, through every read path, that they never
// see two generations at once or a partial set.
func TestBatchIsAtomicForReaders(t *testing.T) {
	const objects, generations, readers = 200, 40, 3
	gen := func(p *corev1.Pod) ([]string, error) { return []string{p.Labels["gen"]}, nil }
	w := store.New(store.Options[*corev1.Pod]{Indexers: store.Indexers[*corev1.Pod]{"gen": gen}})
	ix := w.Indexer()
	write := func(tx store.Tx[*corev1.Pod], g int) {
		for n := range objects {
			ns := fmt.Sprint("ns", n%3)
			key := fmt.Sprintf("%s/p%d", ns, n)
			if n%2 == 1 {
				tx.Delete(key)
			}
			tx.Set(key, pod(ns, fmt.Sprint("p", n), "", map[string]string{"gen": strconv.Itoa(g), "app": "x"}))
		}
	}
	w.Batch(func(tx store.Tx[*corev1.Pod]) { write(tx, 0) })

	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for r := range readers {
		wg.Go(func() {
			for !done.Load() {
				if err := checkOneGeneration(ix, r); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for g := 1; g <= generations; g++ {
		w.Batch(func(tx store.Tx[*corev1.Pod]) { write(tx, g) })
	}
	done.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got, _ := ix.ByIndex("gen", strconv.Itoa(generations)); len(got) != objects {
		t.Errorf("final generation has %d objects, want %d", len(got), objects)
	}
}

func checkOneGeneration(ix *store.Indexer[*corev1.Pod], reader int) error {
	const objects = 200
	all := ix.List()
	if len(all) != objects {
		return fmt.Errorf("List saw %d objects, want %d", len(all), objects)
	}
	g := all[0].Labels["gen"]
	for _, p := range all {
		if p.Labels["gen"] != g {
			return fmt.Errorf("List saw generations %s and %s together", g, p.Labels["gen"])
		}
	}
	switch reader % 3 {
	case 0:
		// The label index (built lazily by the first such call, racing with
		// the writer) must agree: a whole generation or nothing.
		n := len(ix.ListSelector("", labels.SelectorFromSet(labels.Set{"gen": g})))
		m := len(ix.ListSelector("ns1", labels.SelectorFromSet(labels.Set{"gen": g, "app": "x"})))
		if (n != 0 && n != objects) || (m != 0 && m != (objects+1)/3) {
			return fmt.Errorf("ListSelector(gen=%s) saw %d objects (%d in ns1): half a batch", g, n, m)
		}
	case 1:
		got, err := ix.ByIndex("gen", g)
		if err != nil {
			return err
		}
		if len(got) != 0 && len(got) != objects {
			return fmt.Errorf("ByIndex(gen, %s) saw %d objects: half a batch", g, len(got))
		}
	case 2:
		keys := ix.ListKeys()
		if len(keys) != objects {
			return fmt.Errorf("ListKeys saw %d keys", len(keys))
		}
		if p, ok := ix.Get(keys[0]); !ok || p.Labels["gen"] == "" {
			return fmt.Errorf("Get(%s) of a listed key failed", keys[0])
		}
	}
	return nil
}

// TestConcurrentReadsDuringWrites runs plain Set/Delete against readers of
// every kind, including AddIndexers and the lazy label index, for the race
// detector, and checks the indices against the objects at the end.
func TestConcurrentReadsDuringWrites(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{})
	ix := w.Indexer()
	var done atomic.Bool
	var wg sync.WaitGroup
	sel := labels.SelectorFromSet(labels.Set{"app": "a1"})
	for r := range 3 {
		wg.Go(func() {
			for !done.Load() {
				switch r {
				case 0:
					ix.ListSelector("", sel)
					ix.ListSelector("ns2", labels.Everything())
				case 1:
					ix.ByIndex(store.NamespaceIndex, "ns1")
					ix.ListIndexFuncValues(store.NamespaceIndex)
				case 2:
					ix.Get("ns1/p1")
					ix.List()
					store.NewLister(ix, podsResource).Namespace("ns1").Get("p1")
				}
			}
		})
	}
	wg.Go(func() {
		if err := ix.AddIndexers(store.Indexers[*corev1.Pod]{"node": byNode}); err != nil {
			t.Error(err)
		}
	})
	for n := range 3000 {
		ns, name := fmt.Sprint("ns", n%4), fmt.Sprint("p", n%500)
		if n%5 == 4 {
			w.Delete(ns + "/" + name)
			continue
		}
		w.Set(ns+"/"+name, pod(ns, name, fmt.Sprint("n", n%7), map[string]string{"app": fmt.Sprint("a", n%3)}))
	}
	done.Store(true)
	wg.Wait()

	all := ix.List()
	for _, p := range all {
		found := false
		got, err := ix.ByIndex("node", p.Spec.NodeName)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range got {
			found = found || q == p
		}
		if !found {
			t.Errorf("%s missing from node index %s", store.Key(p), p.Spec.NodeName)
		}
	}
	want := 0
	for _, p := range all {
		if p.Labels["app"] == "a1" {
			want++
		}
	}
	if got := len(ix.ListSelector("", sel)); got != want {
		t.Errorf("ListSelector(app=a1) = %d objects, want %d", got, want)
	}
}
