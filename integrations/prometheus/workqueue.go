package prometheus

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	clientgo "k8s.io/client-go/util/workqueue"

	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// The workqueue families, as controller-runtime's pkg/metrics names them.
const (
	WorkQueueSubsystem         = "workqueue"
	DepthKey                   = "depth"
	AddsKey                    = "adds_total"
	QueueLatencyKey            = "queue_duration_seconds"
	WorkDurationKey            = "work_duration_seconds"
	UnfinishedWorkKey          = "unfinished_work_seconds"
	LongestRunningProcessorKey = "longest_running_processor_seconds"
	RetriesKey                 = "retries_total"
)

// WorkqueueMetrics is a client-go workqueue.MetricsProvider (what
// runtime/workqueue's Options.Metrics takes) over Prometheus collectors
// registered in (or reused from) one prometheus.Registerer; see the package
// documentation for the families. It is safe for concurrent use and may be
// shared by any number of queues, each with its own name.
type WorkqueueMetrics struct {
	depth                   *prom.GaugeVec
	adds                    *prom.CounterVec
	latency                 *prom.HistogramVec
	workDuration            *prom.HistogramVec
	unfinished              *prom.GaugeVec
	longestRunningProcessor *prom.GaugeVec
	retries                 *prom.CounterVec
}

var _ clientgo.MetricsProvider = (*WorkqueueMetrics)(nil)

// newWorkqueueCollectors returns fresh collectors with controller-runtime's
// exact definitions (sigs.k8s.io/controller-runtime v0.25
// pkg/internal/metrics/workqueue.go).
func newWorkqueueCollectors() *WorkqueueMetrics {
	return &WorkqueueMetrics{
		depth: prom.NewGaugeVec(prom.GaugeOpts{
			Subsystem: WorkQueueSubsystem,
			Name:      DepthKey,
			Help:      "Current depth of workqueue by workqueue and priority",
		}, []string{"name", "controller", "priority"}),
		adds: prom.NewCounterVec(prom.CounterOpts{
			Subsystem: WorkQueueSubsystem,
			Name:      AddsKey,
			Help:      "Total number of adds handled by workqueue",
		}, []string{"name", "controller"}),
		latency: prom.NewHistogramVec(prom.HistogramOpts{
			Subsystem:                       WorkQueueSubsystem,
			Name:                            QueueLatencyKey,
			Help:                            "How long in seconds an item stays in workqueue before being requested",
			Buckets:                         prom.ExponentialBuckets(10e-9, 10, 12),
			NativeHistogramBucketFactor:     1.1,
			NativeHistogramMaxBucketNumber:  100,
			NativeHistogramMinResetDuration: 1 * time.Hour,
		}, []string{"name", "controller"}),
		workDuration: prom.NewHistogramVec(prom.HistogramOpts{
			Subsystem:                       WorkQueueSubsystem,
			Name:                            WorkDurationKey,
			Help:                            "How long in seconds processing an item from workqueue takes.",
			Buckets:                         prom.ExponentialBuckets(10e-9, 10, 12),
			NativeHistogramBucketFactor:     1.1,
			NativeHistogramMaxBucketNumber:  100,
			NativeHistogramMinResetDuration: 1 * time.Hour,
		}, []string{"name", "controller"}),
		unfinished: prom.NewGaugeVec(prom.GaugeOpts{
			Subsystem: WorkQueueSubsystem,
			Name:      UnfinishedWorkKey,
			Help: "How many seconds of work has been done that " +
				"is in progress and hasn't been observed by work_duration. Large " +
				"values indicate stuck threads. One can deduce the number of stuck " +
				"threads by observing the rate at which this increases.",
		}, []string{"name", "controller"}),
		longestRunningProcessor: prom.NewGaugeVec(prom.GaugeOpts{
			Subsystem: WorkQueueSubsystem,
			Name:      LongestRunningProcessorKey,
			Help: "How many seconds has the longest running " +
				"processor for workqueue been running.",
		}, []string{"name", "controller"}),
		retries: prom.NewCounterVec(prom.CounterOpts{
			Subsystem: WorkQueueSubsystem,
			Name:      RetriesKey,
			Help:      "Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)",
		}, []string{"name", "controller"}),
	}
}

// NewWorkqueueMetrics registers the workqueue families in reg and returns a
// provider over them. A family reg already holds with the identical
// definition (controller-runtime's, after its controller package was
// imported) is reused, not registered twice, so calling it again with the
// same reg, or with controller-runtime's metrics.Registry, is fine. It
// returns an error naming the family if reg holds a different definition
// under the same name (other labels or help) or rejects a collector;
// collectors registered by this call before the failure stay registered.
func NewWorkqueueMetrics(reg prom.Registerer) (*WorkqueueMetrics, error) {
	if reg == nil {
		return nil, errors.New("workqueue metrics: nil prometheus.Registerer")
	}
	m := newWorkqueueCollectors()
	var err error
	if m.depth, err = register(reg, m.depth, DepthKey); err != nil {
		return nil, err
	}
	if m.adds, err = register(reg, m.adds, AddsKey); err != nil {
		return nil, err
	}
	if m.latency, err = register(reg, m.latency, QueueLatencyKey); err != nil {
		return nil, err
	}
	if m.workDuration, err = register(reg, m.workDuration, WorkDurationKey); err != nil {
		return nil, err
	}
	if m.unfinished, err = register(reg, m.unfinished, UnfinishedWorkKey); err != nil {
		return nil, err
	}
	if m.longestRunningProcessor, err = register(reg, m.longestRunningProcessor, LongestRunningProcessorKey); err != nil {
		return nil, err
	}
	if m.retries, err = register(reg, m.retries, RetriesKey); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c in reg, or returns the identical collector reg
// already holds.
func register[C prom.Collector](reg prom.Registerer, c C, key string) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	name := WorkQueueSubsystem + "_" + key
	if are, ok := errors.AsType[prom.AlreadyRegisteredError](err); ok {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
		return c, fmt.Errorf("workqueue metrics: %s is already registered as a %T, not a %T", name, are.ExistingCollector, c)
	}
	return c, fmt.Errorf("workqueue metrics: registering %s: %w", name, err)
}

// NewDepthMetric returns the workqueue_depth series of the queue name with
// priority "", as controller-runtime's plain queues. A runtime/workqueue
// queue does not call it: WorkqueueMetrics is a
// workqueue.PriorityMetricsProvider, so the queue's depth is reported per
// priority (NewDepthMetricWithPriority).
func (m *WorkqueueMetrics) NewDepthMetric(name string) clientgo.GaugeMetric {
	return m.depth.WithLabelValues(name, name, "")
}

var _ workqueue.PriorityMetricsProvider = (*WorkqueueMetrics)(nil)

// NewDepthMetricWithPriority returns the workqueue_depth series of the queue
// name, one per priority ("0", "-100", ...), as controller-runtime's
// priority queue reports them. As there, a queue that has seen more than
// MaxDepthPriorities distinct priorities reports all further changes under
// priority "exceeded_cardinality_limit", bounding the number of series.
func (m *WorkqueueMetrics) NewDepthMetricWithPriority(name string) workqueue.PriorityGauge {
	return &priorityDepth{vec: m.depth, name: name, seen: map[int]bool{}}
}

// MaxDepthPriorities is controller-runtime's bound on the distinct priority
// label values of one queue's workqueue_depth.
const MaxDepthPriorities = 25

// ExceededPriorities is the priority label used past MaxDepthPriorities.
const ExceededPriorities = "exceeded_cardinality_limit"

type priorityDepth struct {
	vec  *prom.GaugeVec
	name string

	mu       sync.Mutex
	seen     map[int]bool
	exceeded bool
}

func (d *priorityDepth) label(priority int) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.exceeded {
		return ExceededPriorities
	}
	d.seen[priority] = true
	if len(d.seen) > MaxDepthPriorities {
		d.exceeded, d.seen = true, nil
		return ExceededPriorities
	}
	return strconv.Itoa(priority)
}

func (d *priorityDepth) Inc(priority int) {
	d.vec.WithLabelValues(d.name, d.name, d.label(priority)).Inc()
}

func (d *priorityDepth) Dec(priority int) {
	d.vec.WithLabelValues(d.name, d.name, d.label(priority)).Dec()
}

// NewAddsMetric returns the workqueue_adds_total series of the queue name.
func (m *WorkqueueMetrics) NewAddsMetric(name string) clientgo.CounterMetric {
	return m.adds.WithLabelValues(name, name)
}

// NewLatencyMetric returns the workqueue_queue_duration_seconds series of
// the queue name.
func (m *WorkqueueMetrics) NewLatencyMetric(name string) clientgo.HistogramMetric {
	return m.latency.WithLabelValues(name, name)
}

// NewWorkDurationMetric returns the workqueue_work_duration_seconds series
// of the queue name.
func (m *WorkqueueMetrics) NewWorkDurationMetric(name string) clientgo.HistogramMetric {
	return m.workDuration.WithLabelValues(name, name)
}

// NewUnfinishedWorkSecondsMetric returns the
// workqueue_unfinished_work_seconds series of the queue name.
func (m *WorkqueueMetrics) NewUnfinishedWorkSecondsMetric(name string) clientgo.SettableGaugeMetric {
	return m.unfinished.WithLabelValues(name, name)
}

// NewLongestRunningProcessorSecondsMetric returns the
// workqueue_longest_running_processor_seconds series of the queue name.
func (m *WorkqueueMetrics) NewLongestRunningProcessorSecondsMetric(name string) clientgo.SettableGaugeMetric {
	return m.longestRunningProcessor.WithLabelValues(name, name)
}

// NewRetriesMetric returns the workqueue_retries_total series of the queue
// name.
func (m *WorkqueueMetrics) NewRetriesMetric(name string) clientgo.CounterMetric {
	return m.retries.WithLabelValues(name, name)
}
