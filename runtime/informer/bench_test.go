package informer_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// chanLW lists a fixed set of objects once and then serves one watch fed by
// the benchmark. Objects are never mutated, so no decode cost is measured:
// the figures are Reflector → FIFO → Indexer → handler.
type chanLW struct {
	items []CM
	w     *watch.FakeWatcher
}

func (l *chanLW) List(context.Context, metav1.ListOptions) (*reflector.ListResult[CM], error) {
	return &reflector.ListResult[CM]{Items: l.items, ResourceVersion: "1"}, nil
}

func (l *chanLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return l.w, nil
}

// BenchmarkSteadyStateUpdates sends update events for 10k cached ConfigMaps
// through a running informer to one handler; ns/op and allocs/op are per
// event, end to end.
func BenchmarkSteadyStateUpdates(b *testing.B) {
	const n = 10000
	// Two versions per key, alternated, so the object sent is never the one
	// cached (and nothing is mutated).
	var vers [2][]CM
	for v := range vers {
		for i := range n {
			o := cm("ns", fmt.Sprint("cm-", i), fmt.Sprint(v))
			o.Labels = map[string]string{"app": "bench", "tier": fmt.Sprint(i % 10)}
			o.ResourceVersion = fmt.Sprint(v + 1)
			vers[v] = append(vers[v], o)
		}
	}
	lw := &chanLW{items: vers[0], w: watch.NewFakeWithChanSize(1024, false)}
	noWL := false
	inf := informer.New[CM](lw, informer.Options[CM]{Reflector: reflector.Options{Name: "bench", WatchList: &noWL}})
	var seen atomic.Int64
	target := make(chan struct{})
	var want atomic.Int64
	want.Store(-1)
	reg, err := inf.AddHandler(informer.HandlerFuncs[CM]{
		UpdateFunc: func(_, _ CM) {
			if seen.Add(1) == want.Load() {
				close(target)
			}
		},
	}, informer.HandlerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, reg); err != nil {
		b.Fatal(err)
	}

	b.ReportAllocs()
	b.ResetTimer()
	want.Store(int64(b.N))
	for i := 0; i < b.N; i++ {
		lw.w.Modify(vers[(i/n+1)%2][i%n])
	}
	<-target
	b.StopTimer()
	cancel()
	lw.w.Stop()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
