package informer_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// An informer over a fake source: register a handler, run, wait until the
// handler has the initial list, read the cache, stop.
func Example() {
	src := runtimetest.NewSource(runtimetest.SourceOptions{},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app-config"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "coredns"}},
	)
	inf := informer.New[*corev1.ConfigMap](src, informer.Options[*corev1.ConfigMap]{
		Reflector: reflector.Options{Name: "configmaps.v1"},
	})

	var mu sync.Mutex
	var added []string
	reg, err := inf.AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc: func(cm *corev1.ConfigMap, isInInitialList bool) {
			mu.Lock()
			defer mu.Unlock()
			added = append(added, fmt.Sprintf("%s/%s initial=%v", cm.Namespace, cm.Name, isInInitialList))
		},
	}, informer.HandlerOptions{})
	if err != nil {
		panic(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Run(ctx) })
	if err := informer.WaitForCacheSync(ctx, reg); err != nil {
		panic(err)
	}

	keys := inf.Indexer().ListKeys()
	slices.Sort(keys)
	fmt.Println("cached:", keys)
	mu.Lock()
	slices.Sort(added)
	fmt.Println("handler saw:", added)
	mu.Unlock()

	cancel()
	wg.Wait() // Run returns once every goroutine it started has exited
	// Output:
	// cached: [default/app-config kube-system/coredns]
	// handler saw: [default/app-config initial=true kube-system/coredns initial=true]
}
