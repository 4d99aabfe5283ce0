package prometheus_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/goleak"
	clientworkqueue "k8s.io/client-go/util/workqueue"
	// The controller package registers controller-runtime's workqueue
	// families in metrics.Registry from an init func, as in any manager
	// binary.
	_ "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	igprom "github.com/informer-gen/informer-gen/integrations/prometheus"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var families = []string{
	"workqueue_depth",
	"workqueue_adds_total",
	"workqueue_queue_duration_seconds",
	"workqueue_work_duration_seconds",
	"workqueue_unfinished_work_seconds",
	"workqueue_longest_running_processor_seconds",
	"workqueue_retries_total",
}

// exercise runs two keys through q, one of them rate limited, so that
// every family has a series: two adds, one retry. It returns once both
// keys are done.
func exercise(t *testing.T, q *workqueue.Queue[string]) {
	t.Helper()
	q.Add("a")
	k, _ := q.Get()
	q.Done(k)
	q.AddRateLimited("b") // added after the limiter's delay (5ms)
	k, _ = q.Get()
	q.Done(k)
}

// exerciseClientGo does the same with a client-go queue, which
// controller-runtime's init made report to metrics.Registry.
func exerciseClientGo(q clientworkqueue.TypedRateLimitingInterface[string]) {
	q.Add("a")
	k, _ := q.Get()
	q.Done(k)
	q.AddRateLimited("b")
}

// shape is what a dashboard depends on: type, help, label names, buckets.
type shape struct {
	typ     dto.MetricType
	help    string
	labels  []string
	buckets []float64
}

// shapes gathers g and returns the shape of each workqueue family's series
// for the queue named queue; it fails the test on a gather error (duplicate
// or inconsistent families).
func shapes(t *testing.T, g prom.Gatherer, queue string) map[string]shape {
	t.Helper()
	return shapesOf(t, g, families, queue)
}

// shapesOf is shapes for any families, of the series labelled name=name.
func shapesOf(t *testing.T, g prom.Gatherer, families []string, name string) map[string]shape {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	out := map[string]shape{}
	for _, mf := range mfs {
		if !slices.Contains(families, mf.GetName()) {
			continue
		}
		for _, m := range mf.GetMetric() {
			var names []string
			mine := false
			for _, lp := range m.GetLabel() {
				names = append(names, lp.GetName())
				if lp.GetName() == "name" && lp.GetValue() == name {
					mine = true
				}
			}
			if !mine {
				continue
			}
			s := shape{typ: mf.GetType(), help: mf.GetHelp(), labels: names}
			for _, b := range m.GetHistogram().GetBucket() {
				s.buckets = append(s.buckets, b.GetUpperBound())
			}
			out[mf.GetName()] = s
		}
	}
	return out
}

func labelValues(t *testing.T, g prom.Gatherer, family, queue string) map[string]string {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != family {
			continue
		}
		for _, m := range mf.GetMetric() {
			lv := map[string]string{}
			for _, lp := range m.GetLabel() {
				lv[lp.GetName()] = lp.GetValue()
			}
			if lv["name"] == queue {
				return lv
			}
		}
	}
	return nil
}

func counterValue(t *testing.T, g prom.Gatherer, family, queue string) float64 {
	t.Helper()
	v := counterValueOr(t, g, family, queue, -1)
	if v < 0 {
		t.Fatalf("no %s series for queue %q", family, queue)
	}
	return v
}

// counterValueOr is counterValue, with def when there is no such series.
func counterValueOr(t *testing.T, g prom.Gatherer, family, queue string, def float64) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != family {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "name" && lp.GetValue() == queue {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return def
}

// TestSameFamiliesAsControllerRuntime registers ours in a registry of our
// own and compares every family, series by series, with what
// controller-runtime's own queue exposes in metrics.Registry.
func TestSameFamiliesAsControllerRuntime(t *testing.T) {
	cr := clientworkqueue.NewTypedRateLimitingQueueWithConfig(clientworkqueue.DefaultTypedControllerRateLimiter[string](),
		clientworkqueue.TypedRateLimitingQueueConfig[string]{Name: "cr-queue"})
	defer cr.ShutDown()
	exerciseClientGo(cr)

	reg := prom.NewRegistry()
	m, err := igprom.NewWorkqueueMetrics(reg)
	if err != nil {
		t.Fatalf("NewWorkqueueMetrics: %v", err)
	}
	q := workqueue.New(workqueue.Options[string]{Name: "ours", Metrics: m})
	defer q.ShutDown()
	exercise(t, q)

	want := shapes(t, metrics.Registry, "cr-queue")
	got := shapes(t, reg, "ours")
	for _, f := range families {
		w, ok := want[f]
		if !ok {
			t.Errorf("controller-runtime exposes no %s series (test setup)", f)
			continue
		}
		g, ok := got[f]
		if !ok {
			t.Errorf("%s: no series from our provider", f)
			continue
		}
		if g.typ != w.typ || g.help != w.help || !slices.Equal(g.labels, w.labels) || !slices.Equal(g.buckets, w.buckets) {
			t.Errorf("%s differs from controller-runtime's:\n got %+v\nwant %+v", f, g, w)
		}
	}
	if lv := labelValues(t, reg, "workqueue_depth", "ours"); lv["controller"] != "ours" || lv["priority"] != "0" {
		t.Errorf("workqueue_depth labels = %v, want controller=ours priority=\"0\" (as controller-runtime's priority queue)", lv)
	}
	if v := counterValue(t, reg, "workqueue_adds_total", "ours"); v != 2 {
		t.Errorf("workqueue_adds_total = %v, want 2", v)
	}
	if v := counterValue(t, reg, "workqueue_retries_total", "ours"); v != 1 {
		t.Errorf("workqueue_retries_total = %v, want 1", v)
	}
}

// TestRegisterIntoControllerRuntimeRegistry is the binary that imports
// controller-runtime: the families are registered already, ours must reuse
// them (no panic, no error, no duplicate family) and our series must show up
// in the manager's registry beside controller-runtime's.
func TestRegisterIntoControllerRuntimeRegistry(t *testing.T) {
	m, err := igprom.NewWorkqueueMetrics(metrics.Registry)
	if err != nil {
		t.Fatalf("NewWorkqueueMetrics(metrics.Registry): %v", err)
	}
	// Twice, as two packages of one binary would.
	m2, err := igprom.NewWorkqueueMetrics(metrics.Registry)
	if err != nil {
		t.Fatalf("second NewWorkqueueMetrics(metrics.Registry): %v", err)
	}
	// metrics.Registry is process-wide: count from what -count=N left.
	before := counterValueOr(t, metrics.Registry, "workqueue_adds_total", "in-cr-registry-2", 0)
	q := workqueue.New(workqueue.Options[string]{Name: "in-cr-registry", Metrics: m})
	defer q.ShutDown()
	q2 := workqueue.New(workqueue.Options[string]{Name: "in-cr-registry-2", Metrics: m2})
	defer q2.ShutDown()
	exercise(t, q)
	exercise(t, q2)

	got := shapes(t, metrics.Registry, "in-cr-registry") // Gather fails on duplicate families
	for _, f := range families {
		if _, ok := got[f]; !ok {
			t.Errorf("%s: no series of our queue in metrics.Registry", f)
		}
	}
	if v := counterValue(t, metrics.Registry, "workqueue_adds_total", "in-cr-registry-2") - before; v != 2 {
		t.Errorf("workqueue_adds_total of the second provider's queue grew by %v, want 2", v)
	}
}

// TestConflictingDefinitionIsAnError: a registry that holds a workqueue
// family with other labels (component-base's legacy {name}-only metrics)
// gets an error naming the family, not a panic.
func TestConflictingDefinitionIsAnError(t *testing.T) {
	reg := prom.NewRegistry()
	reg.MustRegister(prom.NewGaugeVec(prom.GaugeOpts{
		Subsystem: "workqueue", Name: "depth", Help: "Current depth of workqueue",
	}, []string{"name"}))
	_, err := igprom.NewWorkqueueMetrics(reg)
	if err == nil || !strings.Contains(err.Error(), "workqueue_depth") {
		t.Fatalf("NewWorkqueueMetrics over a conflicting workqueue_depth: err = %v, want an error naming workqueue_depth", err)
	}
	if _, err := igprom.NewWorkqueueMetrics(nil); err == nil {
		t.Fatal("NewWorkqueueMetrics(nil): no error")
	}
}

// TestUnfinishedWork: the periodic gauges reach Prometheus (fake time).
func TestUnfinishedWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prom.NewRegistry()
		m, err := igprom.NewWorkqueueMetrics(reg)
		if err != nil {
			t.Fatal(err)
		}
		q := workqueue.New(workqueue.Options[string]{Name: "slow", Metrics: m, MetricsUpdatePeriod: 100 * time.Millisecond})
		defer q.ShutDown()
		q.Add("a")
		k, _ := q.Get()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var longest float64 = -1
		for _, mf := range mfs {
			if mf.GetName() == "workqueue_longest_running_processor_seconds" {
				longest = mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		if longest < 1.8 || longest > 2 {
			t.Errorf("workqueue_longest_running_processor_seconds = %v after 2s in flight, want in [1.8, 2]", longest)
		}
		q.Done(k)
	})
}

// depthByPriority returns queue's workqueue_depth values by priority label.
func depthByPriority(t *testing.T, g prom.Gatherer, queue string) map[string]float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "workqueue_depth" {
			continue
		}
		for _, m := range mf.GetMetric() {
			lv := map[string]string{}
			for _, lp := range m.GetLabel() {
				lv[lp.GetName()] = lp.GetValue()
			}
			if lv["name"] == queue {
				out[lv["priority"]] = m.GetGauge().GetValue()
			}
		}
	}
	return out
}

// TestDepthPerPriority: workqueue_depth has a series per priority, a key
// that moves to a higher priority moves between them, and past
// MaxDepthPriorities distinct priorities the rest go to one overflow series.
func TestDepthPerPriority(t *testing.T) {
	reg := prom.NewRegistry()
	m, err := igprom.NewWorkqueueMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	q := workqueue.New(workqueue.Options[string]{Name: "prio", Metrics: m})
	defer q.ShutDown()
	q.AddWithOpts(workqueue.AddOpts{Priority: workqueue.LowPriority}, "a", "b", "c")
	q.Add("d")
	q.Add("a") // moves up
	got := depthByPriority(t, reg, "prio")
	if got["-100"] != 2 || got["0"] != 2 {
		t.Fatalf("depth by priority = %v, want -100: 2, 0: 2", got)
	}
	for p := 1; p <= igprom.MaxDepthPriorities; p++ {
		q.AddWithOpts(workqueue.AddOpts{Priority: p}, fmt.Sprint("k", p))
	}
	got = depthByPriority(t, reg, "prio")
	if got[igprom.ExceededPriorities] == 0 || len(got) > igprom.MaxDepthPriorities+1 {
		t.Fatalf("%d depth series (%v): want at most %d and an overflow series", len(got), got, igprom.MaxDepthPriorities+1)
	}
}
