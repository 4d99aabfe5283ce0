package store_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// FuzzIndexerOps reads a program from the input, two bytes per operation
// (opcode, argument), runs it against an Indexer and a plain map, and checks
// every read against the map after each operation. Its seed corpus runs with
// go test; go test -fuzz FuzzIndexerOps explores further.
func FuzzIndexerOps(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 1, 0, 1})
	f.Add([]byte{0, 3, 4, 0, 0, 3, 3, 9, 2, 3, 0, 200, 1, 200})
	f.Add([]byte{0, 10, 0, 11, 0, 12, 5, 0, 4, 0, 0, 10, 1, 11, 2, 0})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 400 {
			prog = prog[:400]
		}
		w := store.New(store.Options[*corev1.Pod]{Indexers: store.Indexers[*corev1.Pod]{"c": byContainer}})
		ix := w.Indexer()
		model := map[string]*corev1.Pod{}
		hasNode := false
		// fuzzPod derives a pod from one byte: name, namespace, labels,
		// node and containers all vary with it.
		fuzzPod := func(b byte) *corev1.Pod {
			ns := namespaces[b%4]
			lbls := map[string]string{"a": fmt.Sprint(b % 3)}
			if b%5 != 0 {
				lbls["b"] = fmt.Sprint(b / 5 % 3)
			}
			if b%7 == 0 {
				lbls["c"] = ""
			}
			containers := []string{"x", "y", "z"}[:b%4%3]
			return pod(ns, fmt.Sprint("p", b/4%16), []string{"", "n1", "n2"}[b/3%3], lbls, containers...)
		}
		for n := 0; n+1 < len(prog); n += 2 {
			op, arg := prog[n]%6, prog[n+1]
			switch op {
			case 0, 1: // set
				p := fuzzPod(arg)
				w.Set(store.Key(p), p)
				model[store.Key(p)] = p
			case 2: // delete
				p := fuzzPod(arg)
				w.Delete(store.Key(p))
				delete(model, store.Key(p))
			case 3: // a batch of arg%8 sets of consecutive pods
				w.Batch(func(tx store.Tx[*corev1.Pod]) {
					for k := range arg % 8 {
						p := fuzzPod(arg + k*4)
						tx.Set(store.Key(p), p)
						model[store.Key(p)] = p
					}
				})
			case 4:
				if !hasNode {
					if err := ix.AddIndexers(store.Indexers[*corev1.Pod]{"node": byNode}); err != nil {
						t.Fatal(err)
					}
					hasNode = true
				}
			case 5:
				ix.ListSelector(namespaces[arg%4], labels.SelectorFromSet(labels.Set{"a": "1"}))
			}
			checkAgainstModel(t, ix, model, hasNode)
		}
	})
}
