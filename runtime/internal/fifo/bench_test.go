package fifo_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
)

// BenchmarkUpdatePop measures one Update followed by one Pop: the steady
// state of an informer whose consumer keeps up. The only allocation expected
// is the "namespace/name" key.
func BenchmarkUpdatePop(b *testing.B) {
	objs := make([]*corev1.ConfigMap, 1000)
	for i := range objs {
		objs[i] = cm("ns", fmt.Sprint("cm-", i), "1")
	}
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown(objs...)})
	process := func(fifo.Batch[*corev1.ConfigMap]) error { return nil }
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := f.Update(objs[i%len(objs)]); err != nil {
			b.Fatal(err)
		}
		if err := f.Pop(b.Context(), process); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateBurstPop queues 100 updates and pops them as one batch.
func BenchmarkUpdateBurstPop(b *testing.B) {
	objs := make([]*corev1.ConfigMap, 100)
	for i := range objs {
		objs[i] = cm("ns", fmt.Sprint("cm-", i), "1")
	}
	f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown(objs...)})
	process := func(fifo.Batch[*corev1.ConfigMap]) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range objs {
			if err := f.Update(o); err != nil {
				b.Fatal(err)
			}
		}
		if err := f.Pop(b.Context(), process); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(objs)), "ns/event")
}

// BenchmarkInitialReplacePop is the FIFO's share of an initial sync: one
// Replace of 100k objects into an empty FIFO and the Pop that hands them over.
func BenchmarkInitialReplacePop(b *testing.B) {
	objs := make([]*corev1.ConfigMap, 100000)
	for i := range objs {
		objs[i] = cm(fmt.Sprint("ns-", i%100), fmt.Sprint("cm-", i), "1")
	}
	process := func(fifo.Batch[*corev1.ConfigMap]) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		f := fifo.New(fifo.Options[*corev1.ConfigMap]{Known: newKnown()})
		if err := f.Replace(objs, "1"); err != nil {
			b.Fatal(err)
		}
		if err := f.Pop(b.Context(), process); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(objs)), "ns/object")
}
