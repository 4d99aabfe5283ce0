package reflector_test

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// The DeltaFIFO is the Sink an informer gives its Reflector.
var _ reflector.Sink[*corev1.ConfigMap] = (*fifo.FIFO[*corev1.ConfigMap])(nil)

// printSink prints what the Reflector hands over: the keys and
// resourceVersions, never the contents.
type printSink struct{ seen chan struct{} }

func (s printSink) Add(o *corev1.ConfigMap) error {
	fmt.Println("add", o.Namespace+"/"+o.Name, "at", o.ResourceVersion)
	s.seen <- struct{}{}
	return nil
}
func (s printSink) Update(o *corev1.ConfigMap) error { return s.Add(o) }
func (s printSink) Delete(o *corev1.ConfigMap) error { return s.Add(o) }
func (s printSink) Replace(objs []*corev1.ConfigMap, rv string) error {
	fmt.Println("replace with", len(objs), "objects at", rv)
	return nil
}
func (s printSink) Resync() error { return nil }

// A Reflector over a fake API server: it streams the initial list (WatchList),
// then forwards each change; Run returns once ctx is cancelled.
func ExampleReflector() {
	src := runtimetest.NewSource(runtimetest.SourceOptions{},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}},
	)
	sink := printSink{seen: make(chan struct{})}
	r := reflector.New(src, reflector.Sink[*corev1.ConfigMap](sink), reflector.Options{Name: "configmaps"})

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = r.Run(ctx) })

	if err := src.WaitForWatches(ctx, 1); err != nil { // listed, now watching
		panic(err)
	}
	if _, err := src.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}}); err != nil {
		panic(err)
	}
	<-sink.seen

	cancel()
	wg.Wait()
	fmt.Println("last resourceVersion:", r.LastSyncResourceVersion())
	// Output:
	// replace with 2 objects at 2
	// add default/c at 3
	// last resourceVersion: 3
}
