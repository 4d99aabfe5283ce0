package workqueue_test

import (
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"

	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// recorder is a metrics provider (client-go's MetricsProvider) that keeps every value, for assertions.
type recorder struct {
	mu     sync.Mutex
	names  []string
	values map[string]float64 // gauges and counters
	obs    map[string][]float64
}

func newRecorder() *recorder {
	return &recorder{values: map[string]float64{}, obs: map[string][]float64{}}
}

type recMetric struct {
	r    *recorder
	name string
}

func (m recMetric) Inc() { m.r.mu.Lock(); m.r.values[m.name]++; m.r.mu.Unlock() }
func (m recMetric) Dec() { m.r.mu.Lock(); m.r.values[m.name]--; m.r.mu.Unlock() }
func (m recMetric) Set(v float64) {
	m.r.mu.Lock()
	m.r.values[m.name] = v
	m.r.mu.Unlock()
}
func (m recMetric) Observe(v float64) {
	m.r.mu.Lock()
	m.r.obs[m.name] = append(m.r.obs[m.name], v)
	m.r.mu.Unlock()
}

func (r *recorder) metric(kind, name string) recMetric {
	r.names = append(r.names, name)
	return recMetric{r, kind}
}
func (r *recorder) NewDepthMetric(n string) clientgo.GaugeMetric       { return r.metric("depth", n) }
func (r *recorder) NewAddsMetric(n string) clientgo.CounterMetric      { return r.metric("adds", n) }
func (r *recorder) NewLatencyMetric(n string) clientgo.HistogramMetric { return r.metric("latency", n) }
func (r *recorder) NewWorkDurationMetric(n string) clientgo.HistogramMetric {
	return r.metric("work", n)
}
func (r *recorder) NewUnfinishedWorkSecondsMetric(n string) clientgo.SettableGaugeMetric {
	return r.metric("unfinished", n)
}
func (r *recorder) NewLongestRunningProcessorSecondsMetric(n string) clientgo.SettableGaugeMetric {
	return r.metric("longest", n)
}
func (r *recorder) NewRetriesMetric(n string) clientgo.CounterMetric { return r.metric("retries", n) }

func (r *recorder) value(name string) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.values[name]
}

func (r *recorder) observed(name string) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]float64(nil), r.obs[name]...)
}

func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder()
		q := workqueue.New(workqueue.Options[string]{
			Name:                "foos",
			Metrics:             rec,
			MetricsUpdatePeriod: time.Second,
			RateLimiter:         workqueue.NewExponentialRateLimiter[string](time.Second, time.Minute),
		})
		for _, n := range rec.names {
			if n != "foos" {
				t.Fatalf("metric created with name %q, want foos", n)
			}
		}
		q.Add("a")
		q.Add("a") // deduplicated: not counted
		q.Add("b")
		if v := rec.value("adds"); v != 2 {
			t.Fatalf("adds = %v, want 2", v)
		}
		if v := rec.value("depth"); v != 2 {
			t.Fatalf("depth = %v, want 2", v)
		}
		time.Sleep(3 * time.Second)
		a := get(t, q)
		if v := rec.value("depth"); v != 1 {
			t.Fatalf("depth after Get = %v, want 1", v)
		}
		if got := rec.observed("latency"); len(got) != 1 || got[0] != 3 {
			t.Fatalf("latency = %v, want [3]", got)
		}
		time.Sleep(2500 * time.Millisecond) // ticks at +1s and +2s
		synctest.Wait()
		if v := rec.value("unfinished"); v != 2 {
			t.Fatalf("unfinished work = %v, want 2 (seconds a has been processing at the last tick)", v)
		}
		if v := rec.value("longest"); v != 2 {
			t.Fatalf("longest running = %v, want 2", v)
		}
		q.Done(a)
		if got := rec.observed("work"); len(got) != 1 || got[0] != 2.5 {
			t.Fatalf("work duration = %v, want [2.5]", got)
		}
		q.AddRateLimited("c")
		q.AddRateLimited("c")
		if v := rec.value("retries"); v != 2 {
			t.Fatalf("retries = %v, want 2", v)
		}
		// As client-go's delaying queue: every AddAfter is a retry, with
		// or without a delay.
		q.AddAfter("d", time.Second)
		q.AddAfter("e", 0)
		if v := rec.value("retries"); v != 4 {
			t.Fatalf("retries after two AddAfter = %v, want 4", v)
		}
		time.Sleep(time.Second) // first tick after Done: nothing in flight
		synctest.Wait()
		if v := rec.value("unfinished"); v != 0 {
			t.Fatalf("unfinished work after Done = %v, want 0", v)
		}
		q.ShutDown() // stops the metrics goroutine
		q.AddAfter("f", time.Second)
		if v := rec.value("retries"); v != 4 {
			t.Fatalf("retries after an AddAfter past shutdown = %v, want 4 (not counted)", v)
		}
	})
}

// prioRecorder is a recorder whose depth is kept per priority.
type prioRecorder struct{ *recorder }

type prioDepth struct{ r *recorder }

func (d prioDepth) Inc(p int) { d.r.mu.Lock(); d.r.values["depth/"+strconv.Itoa(p)]++; d.r.mu.Unlock() }
func (d prioDepth) Dec(p int) { d.r.mu.Lock(); d.r.values["depth/"+strconv.Itoa(p)]--; d.r.mu.Unlock() }

func (r prioRecorder) NewDepthMetricWithPriority(n string) workqueue.PriorityGauge {
	r.names = append(r.names, n)
	return prioDepth{r.recorder}
}

// TestMetricsDepthPerPriority: with a PriorityMetricsProvider the depth is
// kept per priority, follows a key that moves to a higher priority and a
// re-add while processing, and the plain depth gauge is not created.
func TestMetricsDepthPerPriority(t *testing.T) {
	rec := prioRecorder{newRecorder()}
	q := workqueue.New(workqueue.Options[string]{Name: "foos", Metrics: rec})
	defer q.ShutDown()
	low := workqueue.LowPriority
	q.AddWithOpts(workqueue.AddOpts{Priority: low}, "a", "b")
	q.Add("c")
	check := func(when string, want map[int]float64) {
		t.Helper()
		for p, v := range want {
			if got := rec.value("depth/" + strconv.Itoa(p)); got != v {
				t.Fatalf("%s: depth at %d = %v, want %v", when, p, got, v)
			}
		}
	}
	check("after adds", map[int]float64{low: 2, 0: 1})
	q.Add("a") // moves a from low to 0
	check("after a moved", map[int]float64{low: 1, 0: 2})
	k, p := getP(t, q)
	if k != "c" || p != 0 {
		t.Fatalf("got %s at %d, want c at 0", k, p)
	}
	check("after Get", map[int]float64{low: 1, 0: 1})
	q.AddWithOpts(workqueue.AddOpts{Priority: low}, "c") // re-added while processing
	q.AddWithOpts(workqueue.AddOpts{Priority: 3}, "c")
	check("after re-adds", map[int]float64{low: 1, 0: 1, 3: 1})
	q.Done("c")
	if k, p := getP(t, q); k != "c" || p != 3 {
		t.Fatalf("got %s at %d, want c at 3", k, p)
	}
	check("after requeued Get", map[int]float64{low: 1, 0: 1, 3: 0})
	if v, ok := rec.values["depth"]; ok {
		t.Fatalf("plain depth gauge used (%v) although the provider has priorities", v)
	}
}
