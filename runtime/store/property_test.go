package store_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-gen/informer-gen/runtime/store"
)

var testSelectors = []string{
	"a=1", "a==2", "a in (1,2)", "a in (1,1,3)", "a=1,b=2", "a in (1,3),b!=2", "c",
	"!c", "a!=1", "a notin (1)", "a=1,c", "b=9", "z=1", "a=1,b in (1,2,3),c=3", "a=,b=1",
}

var namespaces = []string{"", "ns1", "ns2", "ns3"}

func randomPod(rng *rand.Rand, nNames int) *corev1.Pod {
	n := rng.IntN(nNames)
	ns := namespaces[n%len(namespaces)]
	lbls := map[string]string{}
	for _, k := range []string{"a", "b", "c"} {
		if rng.IntN(4) != 0 {
			lbls[k] = []string{"1", "2", "3", ""}[rng.IntN(4)]
		}
	}
	if rng.IntN(5) == 0 {
		lbls = nil
	}
	var containers []string
	for range rng.IntN(4) {
		containers = append(containers, []string{"x", "y", "z"}[rng.IntN(3)])
	}
	return pod(ns, fmt.Sprintf("p%d", n), []string{"", "n1", "n2", "n3"}[rng.IntN(4)], lbls, containers...)
}

// TestRandomOpsAgainstBruteForce applies random sets, deletes, batches,
// AddIndexers and the lazy label index build in random order, and after each
// step checks every read against a brute-force evaluation of a plain map.
func TestRandomOpsAgainstBruteForce(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 42))
			// Some seeds use enough objects for postings to become bitmaps.
			nNames := []int{60, 60, 400}[seed%3]
			selectFrom := []int{0, 120, 200}[seed%3]
			w := store.New(store.Options[*corev1.Pod]{Indexers: store.Indexers[*corev1.Pod]{"c": byContainer}})
			ix := w.Indexer()
			model := map[string]*corev1.Pod{}
			hasNode := false
			set := func(set func(string, *corev1.Pod) (*corev1.Pod, bool)) {
				p := randomPod(rng, nNames)
				old, existed := set(store.Key(p), p)
				if want := model[store.Key(p)]; old != want || existed != (want != nil) {
					t.Fatalf("Set(%s) returned %p, %v; want %p", store.Key(p), old, existed, want)
				}
				model[store.Key(p)] = p
			}
			del := func(del func(string) (*corev1.Pod, bool)) {
				p := randomPod(rng, nNames)
				old, existed := del(store.Key(p))
				if want := model[store.Key(p)]; old != want || existed != (want != nil) {
					t.Fatalf("Delete(%s) returned %p, %v; want %p", store.Key(p), old, existed, want)
				}
				delete(model, store.Key(p))
			}
			for step := range 250 {
				switch r := rng.IntN(100); {
				case r < 55:
					set(w.Set)
				case r < 85:
					del(w.Delete)
				case r < 95:
					w.Batch(func(tx store.Tx[*corev1.Pod]) {
						for range rng.IntN(10) {
							if rng.IntN(2) == 0 {
								set(tx.Set)
							} else {
								del(tx.Delete)
							}
						}
						if got, want := len(tx.ListKeys()), len(model); got != want {
							t.Fatalf("tx.ListKeys has %d keys, want %d", got, want)
						}
						for k, want := range model {
							if got, ok := tx.Get(k); !ok || got != want {
								t.Fatalf("tx.Get(%s) = %p, want %p", k, got, want)
							}
						}
					})
				case r < 97 && !hasNode:
					if err := ix.AddIndexers(store.Indexers[*corev1.Pod]{"node": byNode}); err != nil {
						t.Fatal(err)
					}
					hasNode = true
				default:
					// Possibly the first label query: builds the label index.
					ix.ListSelector("", labels.SelectorFromSet(labels.Set{"a": "1"}))
				}
				// Label keys get indexed late (with objects present) on
				// some seeds: selectors are checked only from selectFrom on.
				if step%2 == 0 || step > 240 {
					checkReadsAgainstModel(t, ix, model, hasNode)
					if step >= selectFrom {
						checkSelectorsAgainstModel(t, ix, model)
					}
				}
			}
		})
	}
}

func checkAgainstModel(t *testing.T, ix *store.Indexer[*corev1.Pod], model map[string]*corev1.Pod, hasNode bool) {
	t.Helper()
	checkReadsAgainstModel(t, ix, model, hasNode)
	checkSelectorsAgainstModel(t, ix, model)
}

func checkReadsAgainstModel(t *testing.T, ix *store.Indexer[*corev1.Pod], model map[string]*corev1.Pod, hasNode bool) {
	t.Helper()
	all := make([]*corev1.Pod, 0, len(model))
	for _, p := range model {
		all = append(all, p)
	}
	sameObjects(t, "List", ix.List(), all)
	if ix.Len() != len(model) {
		t.Fatalf("Len = %d, want %d", ix.Len(), len(model))
	}
	wantKeys := make([]string, 0, len(model))
	for k := range model {
		wantKeys = append(wantKeys, k)
	}
	if got := sorted(ix.ListKeys()); !slices.Equal(got, sorted(wantKeys)) {
		t.Fatalf("ListKeys = %q, want %q", got, wantKeys)
	}

	indexes := store.Indexers[*corev1.Pod]{
		store.NamespaceIndex: func(p *corev1.Pod) ([]string, error) { return []string{p.Namespace}, nil },
		"c":                  byContainer,
	}
	if hasNode {
		indexes["node"] = byNode
	}
	for name, fn := range indexes {
		want := map[string][]*corev1.Pod{}
		for _, p := range all {
			vals, _ := fn(p)
			slices.Sort(vals)
			for _, v := range slices.Compact(vals) {
				want[v] = append(want[v], p)
			}
		}
		gotValues := sorted(ix.ListIndexFuncValues(name))
		wantValues := make([]string, 0, len(want))
		for v := range want {
			wantValues = append(wantValues, v)
		}
		if !slices.Equal(gotValues, sorted(wantValues)) {
			t.Fatalf("ListIndexFuncValues(%s) = %q, want %q", name, gotValues, wantValues)
		}
		for _, v := range append(wantValues, "absent") {
			got, err := ix.ByIndex(name, v)
			if err != nil {
				t.Fatal(err)
			}
			sameObjects(t, fmt.Sprintf("ByIndex(%s, %s)", name, v), got, want[v])
			keys, _ := ix.IndexKeys(name, v)
			if len(keys) != len(want[v]) {
				t.Fatalf("IndexKeys(%s, %s) has %d keys, want %d", name, v, len(keys), len(want[v]))
			}
		}
	}

}

// checkSelectorsAgainstModel runs every test selector in every namespace; the
// first call indexes label keys b and c (and a, unless already indexed).
func checkSelectorsAgainstModel(t *testing.T, ix *store.Indexer[*corev1.Pod], model map[string]*corev1.Pod) {
	t.Helper()
	all := make([]*corev1.Pod, 0, len(model))
	for _, p := range model {
		all = append(all, p)
	}
	for _, s := range testSelectors {
		sel, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, ns := range namespaces {
			var want []*corev1.Pod
			for _, p := range all {
				if (ns == "" || p.Namespace == ns) && sel.Matches(labels.Set(p.Labels)) {
					want = append(want, p)
				}
			}
			sameObjects(t, fmt.Sprintf("ListSelector(%q, %q)", ns, s), ix.ListSelector(ns, sel), want)
		}
	}
}

// sameObjects compares as sets of pointers and rejects duplicates.
func sameObjects(t *testing.T, what string, got, want []*corev1.Pod) {
	t.Helper()
	seen := map[*corev1.Pod]bool{}
	for _, p := range got {
		if seen[p] {
			t.Fatalf("%s returned %s twice", what, store.Key(p))
		}
		seen[p] = true
	}
	ok := len(got) == len(want)
	for _, p := range want {
		ok = ok && seen[p]
	}
	if !ok {
		t.Fatalf("%s = %q, want %q", what, names(got), names(want))
	}
}
