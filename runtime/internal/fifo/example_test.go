package fifo_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
)

// A relist while the consumer's cache holds a and b: a is listed again, b
// vanished. Replace queues one atomic batch with a tombstone for b and a
// Replaced for a; a watch event queued earlier comes first.
func Example() {
	cache := newKnown(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "1"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b", ResourceVersion: "2"}},
	)
	q := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: cache})

	_ = q.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: "3"}})
	_ = q.Replace([]*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "4"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", ResourceVersion: "3"}},
	}, "4")

	for q.Len() > 0 {
		_ = q.Pop(context.Background(), func(b fifo.Batch[*corev1.ConfigMap]) error {
			fmt.Printf("batch atomic=%v initial=%v\n", b.Atomic, b.InitialList)
			for _, d := range b.Deltas {
				fmt.Printf("  %s %s rv=%s tombstone=%v\n", d.Type, d.Key, d.Object.ResourceVersion, d.FinalStateUnknown)
			}
			cache.apply(b) // a real consumer applies b to its store here
			return nil
		})
	}
	fmt.Println("synced:", q.HasSynced())
	// Output:
	// batch atomic=false initial=true
	//   Added ns/c rv=3 tombstone=false
	// batch atomic=true initial=true
	//   Deleted ns/b rv=2 tombstone=true
	//   Replaced ns/a rv=4 tombstone=false
	//   Replaced ns/c rv=3 tombstone=false
	// synced: true
}
