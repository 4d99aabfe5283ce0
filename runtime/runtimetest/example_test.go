package runtimetest_test

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// Testing a handler against a fake API server: run an informer over a Source,
// record what the handler sees, and wait for it to catch up — no sleeps.
func Example() {
	type CM = *corev1.ConfigMap
	src := runtimetest.NewSource(runtimetest.SourceOptions{},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app"}},
	)
	inf := informer.New(src, informer.Options[CM]{})
	rec := new(runtimetest.Recorder[CM])
	if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Run(ctx) })
	defer wg.Wait()
	defer cancel()

	caughtUp := func() {
		want := src.Snapshot()
		if err := rec.WaitFor(ctx, func(got map[string]CM) bool {
			return runtimetest.SameResourceVersions(got, want)
		}); err != nil {
			panic(err)
		}
	}
	caughtUp()

	// Write, then force the hard cases: a compaction (410: the informer
	// relists, and hands every object to OnUpdate) and a dropped watch (it
	// resumes from the last resourceVersion).
	if _, err := src.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db"}}); err != nil {
		panic(err)
	}
	caughtUp()
	src.Compact()
	if err := src.WaitForWatches(ctx, 1); err != nil { // relisted and watching again
		panic(err)
	}
	if _, err := src.Delete(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app"}}); err != nil {
		panic(err)
	}
	caughtUp()
	src.DropWatches()
	if _, err := src.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cache"}}); err != nil {
		panic(err)
	}
	caughtUp()

	for _, e := range rec.Events() {
		fmt.Println(e.Type, e.Key, "rv", e.Obj.ResourceVersion)
	}
	fmt.Println("contract violations:", rec.Err())
	// Output:
	// add default/app rv 1
	// add default/db rv 2
	// update default/app rv 1
	// update default/db rv 2
	// delete default/app rv 3
	// add default/cache rv 4
	// contract violations: <nil>
}
