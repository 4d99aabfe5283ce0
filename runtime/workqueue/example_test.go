package workqueue_test

import (
	"context"
	"fmt"
	"sync"

	clientgo "k8s.io/client-go/util/workqueue"

	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// A controller's worker loop: keys come from informer handlers, failures are
// retried with backoff, successes reset it.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	q := workqueue.New(workqueue.Options[string]{Name: "foos"})
	stop := context.AfterFunc(ctx, q.ShutDownWithDrain) // the queue follows ctx
	defer stop()

	var wg sync.WaitGroup
	var mu sync.Mutex
	var processed []string
	reconcile := func(key string) error {
		mu.Lock()
		defer mu.Unlock()
		processed = append(processed, key)
		return nil
	}
	for range 2 {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				if err := reconcile(key); err != nil {
					q.AddRateLimited(key)
				} else {
					q.Forget(key)
				}
				q.Done(key)
			}
		})
	}
	q.Add("default/foo")
	q.Add("default/bar")
	q.Add("default/foo") // deduplicated while queued
	cancel()             // ShutDownWithDrain: workers finish what is queued
	wg.Wait()
	fmt.Println(len(processed) >= 2)
	// Output: true
}

// Options.Metrics takes client-go's workqueue.MetricsProvider, so a provider
// written for client-go's queues (controller-runtime's, or
// integrations/prometheus's WorkqueueMetrics) is used as it is. One backed by
// Prometheus is a few lines; prometheus types already have the
// Inc/Dec/Set/Observe methods the hooks need:
//
//	type promProvider struct{ reg prometheus.Registerer }
//
//	func (p promProvider) NewDepthMetric(name string) clientgo.GaugeMetric {
//		g := prometheus.NewGauge(prometheus.GaugeOpts{
//			Subsystem: "workqueue", Name: "depth",
//			ConstLabels: prometheus.Labels{"name": name},
//		})
//		p.reg.MustRegister(g)
//		return g
//	}
//	// ... likewise NewAddsMetric (Counter "adds_total"), NewLatencyMetric
//	// (Histogram "queue_duration_seconds"), NewWorkDurationMetric
//	// ("work_duration_seconds"), NewUnfinishedWorkSecondsMetric and
//	// NewLongestRunningProcessorSecondsMetric (Gauges), NewRetriesMetric
//	// (Counter "retries_total").
//
// This example backs it with plain counters instead.
func ExampleOptions_metrics() {
	m := &counters{}
	q := workqueue.New(workqueue.Options[string]{Name: "foos", Metrics: m})
	q.Add("a")
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	fmt.Println("adds:", m.adds, "depth:", m.depth)
	// Output: adds: 2 depth: 2
}

type counters struct{ adds, depth int }

type fn struct{ inc, dec func() }

func (f fn) Inc() {
	if f.inc != nil {
		f.inc()
	}
}
func (f fn) Dec() {
	if f.dec != nil {
		f.dec()
	}
}
func (fn) Set(float64)     {}
func (fn) Observe(float64) {}

func (c *counters) NewDepthMetric(string) clientgo.GaugeMetric {
	return fn{func() { c.depth++ }, func() { c.depth-- }}
}
func (c *counters) NewAddsMetric(string) clientgo.CounterMetric           { return fn{inc: func() { c.adds++ }} }
func (c *counters) NewLatencyMetric(string) clientgo.HistogramMetric      { return fn{} }
func (c *counters) NewWorkDurationMetric(string) clientgo.HistogramMetric { return fn{} }
func (c *counters) NewUnfinishedWorkSecondsMetric(string) clientgo.SettableGaugeMetric {
	return fn{}
}
func (c *counters) NewLongestRunningProcessorSecondsMetric(string) clientgo.SettableGaugeMetric {
	return fn{}
}
func (c *counters) NewRetriesMetric(string) clientgo.CounterMetric { return fn{} }

// Run is the worker loop of Example in one call: retries with backoff,
// Forget on success, panics recovered, and it returns once ctx is cancelled
// and every worker has finished.
func ExampleQueue_Run() {
	q := workqueue.New(workqueue.Options[string]{Name: "foos"})
	ctx, cancel := context.WithCancel(context.Background())
	q.Add("default/foo")
	err := q.Run(ctx, 2, func(ctx context.Context, key string) error {
		fmt.Println("reconciled", key)
		cancel() // a real controller runs until its manager stops
		return nil
	})
	fmt.Println("run returned", err)
	// Output:
	// reconciled default/foo
	// run returned <nil>
}
