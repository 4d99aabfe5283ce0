package store_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-gen/informer-gen/runtime/store"
)

func Example() {
	// The informer owns the Writer; everyone else reads through the Indexer.
	w := store.New(store.Options[*corev1.Pod]{
		Indexers: store.Indexers[*corev1.Pod]{
			"node": func(p *corev1.Pod) ([]string, error) { return store.Values(p.Spec.NodeName), nil },
		},
	})
	for _, p := range []*corev1.Pod{
		pod("shop", "web-1", "node-a", map[string]string{"app": "web"}),
		pod("shop", "web-2", "node-b", map[string]string{"app": "web"}),
		pod("shop", "db-1", "node-a", map[string]string{"app": "db"}),
	} {
		w.Set(store.Key(p), p)
	}
	ix := w.Indexer()

	onA, _ := ix.IndexKeys("node", "node-a")
	fmt.Println("on node-a:", sorted(onA))

	web := ix.ListSelector("shop", labels.SelectorFromSet(labels.Set{"app": "web"}))
	fmt.Println("app=web:", names(web))

	// A relist is applied atomically: readers see all of it or none.
	w.Batch(func(tx store.Tx[*corev1.Pod]) {
		tx.Delete("shop/web-2")
		tx.Set("shop/web-3", pod("shop", "web-3", "node-b", map[string]string{"app": "web"}))
	})
	fmt.Println("keys:", sorted(ix.ListKeys()))
	// Output:
	// on node-a: [shop/db-1 shop/web-1]
	// app=web: [shop/web-1 shop/web-2]
	// keys: [shop/db-1 shop/web-1 shop/web-3]
}

func ExampleLister() {
	w := store.New(store.Options[*corev1.Pod]{})
	p := pod("shop", "web-1", "", nil)
	w.Set(store.Key(p), p)

	pods := store.NewLister(w.Indexer(), podsResource).Namespace("shop")
	got, err := pods.Get("web-1")
	fmt.Println(got.Name, err)
	// Objects are shared with the cache: copy before changing anything.
	mine := got.DeepCopy()
	mine.Labels = map[string]string{"edited": "true"}

	_, err = pods.Get("web-9")
	fmt.Println(apierrors.IsNotFound(err), err)
	// Output:
	// web-1 <nil>
	// true pods "web-9" not found
}
