package controllerruntime_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// TestKindFeedsPriorityQueue: a Kind source over our informer marks the
// initial list's creates IsInInitialList, so controller-runtime's priority
// queue (its default) queues them at handler.LowPriority, and an object
// created afterwards at priority 0.
func TestKindFeedsPriorityQueue(t *testing.T) {
	cm := func(name, rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	}
	src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: configMapType.Resource.GroupResource()}, cm("a", ""), cm("b", ""))
	inf := informer.New[*corev1.ConfigMap](src, informer.Options[*corev1.ConfigMap]{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a safety net, not a speed check
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	q := priorityqueue.New[reconcile.Request]("")
	defer q.ShutDown()
	kind := crinformers.Kind(inf, &handler.TypedEnqueueRequestForObject[*corev1.ConfigMap]{})
	if err := kind.Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	if err := kind.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	for q.Len() < 2 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	for _, name := range []string{"a", "b"} {
		item, prio, _ := q.GetWithPriority()
		if item.Name != name || prio != handler.LowPriority {
			t.Fatalf("got %s at %d, want %s at LowPriority (%d)", item.Name, prio, name, handler.LowPriority)
		}
		q.Done(item)
	}
	if _, err := src.Add(cm("c", "")); err != nil {
		t.Fatal(err)
	}
	if item, prio, _ := q.GetWithPriority(); item.Name != "c" || prio != 0 {
		t.Fatalf("got %s at %d, want c (created after the initial list) at 0", item.Name, prio)
	}
}
