package workqueue

import "time"

// MetricsProvider creates the metrics of a queue named name. It has the
// shape of client-go's workqueue.MetricsProvider, so a Prometheus-backed
// provider written for client-go ports by changing its return types; see
// ExampleMetricsProvider. Each method is called once, from New.
type MetricsProvider interface {
	// NewDepthMetric: keys waiting to be processed (queued or re-added while
	// processing).
	NewDepthMetric(name string) Gauge
	// NewAddsMetric: adds that were not deduplicated.
	NewAddsMetric(name string) Counter
	// NewLatencyMetric: seconds a key waited between Add and Get.
	NewLatencyMetric(name string) Histogram
	// NewWorkDurationMetric: seconds between Get and Done.
	NewWorkDurationMetric(name string) Histogram
	// NewUnfinishedWorkSecondsMetric: sum of the seconds every in-flight key
	// has been processed so far; refreshed periodically.
	NewUnfinishedWorkSecondsMetric(name string) SettableGauge
	// NewLongestRunningProcessorSecondsMetric: seconds the oldest in-flight
	// key has been processed; refreshed periodically.
	NewLongestRunningProcessorSecondsMetric(name string) SettableGauge
	// NewRetriesMetric: calls of AddAfter (whatever the delay, even 0) and
	// AddRateLimited before shutdown, as client-go counts them.
	NewRetriesMetric(name string) Counter
}

// PriorityMetricsProvider is a MetricsProvider that also reports the depth
// per priority. When the queue's provider implements it, the queue calls
// NewDepthMetricWithPriority instead of NewDepthMetric (the shape of
// controller-runtime's MetricsProviderWithPriority, whose workqueue_depth
// has a "priority" label).
type PriorityMetricsProvider interface {
	MetricsProvider
	// NewDepthMetricWithPriority: keys waiting to be processed, by the
	// priority they wait at.
	NewDepthMetricWithPriority(name string) PriorityGauge
}

// PriorityGauge is a depth gauge per priority.
type PriorityGauge interface {
	Inc(priority int)
	Dec(priority int)
}

// Gauge goes up and down (prometheus.Gauge satisfies it).
type Gauge interface {
	Inc()
	Dec()
}

// SettableGauge is set to a value (prometheus.Gauge satisfies it).
type SettableGauge interface{ Set(float64) }

// Counter only goes up (prometheus.Counter satisfies it).
type Counter interface{ Inc() }

// Histogram observes values (prometheus.Histogram and Summary satisfy it).
type Histogram interface{ Observe(float64) }

// metrics is the per-queue state behind the hooks; every method runs with the
// queue's lock held.
type metrics[K comparable] struct {
	depth        Gauge         // nil when depthPrio is set
	depthPrio    PriorityGauge // nil unless the provider has priorities
	adds         Counter
	latency      Histogram
	workDuration Histogram
	unfinished   SettableGauge
	longest      SettableGauge
	retries      Counter

	addTimes        map[K]time.Time
	processingSince map[K]time.Time
}

func newMetrics[K comparable](p MetricsProvider, name string) *metrics[K] {
	m := &metrics[K]{
		adds:            p.NewAddsMetric(name),
		latency:         p.NewLatencyMetric(name),
		workDuration:    p.NewWorkDurationMetric(name),
		unfinished:      p.NewUnfinishedWorkSecondsMetric(name),
		longest:         p.NewLongestRunningProcessorSecondsMetric(name),
		retries:         p.NewRetriesMetric(name),
		addTimes:        make(map[K]time.Time),
		processingSince: make(map[K]time.Time),
	}
	if pp, ok := p.(PriorityMetricsProvider); ok {
		m.depthPrio = pp.NewDepthMetricWithPriority(name)
	} else {
		m.depth = p.NewDepthMetric(name)
	}
	return m
}

func (m *metrics[K]) inc(prio int) {
	if m.depthPrio != nil {
		m.depthPrio.Inc(prio)
	} else {
		m.depth.Inc()
	}
}

func (m *metrics[K]) dec(prio int) {
	if m.depthPrio != nil {
		m.depthPrio.Dec(prio)
	} else {
		m.depth.Dec()
	}
}

// move is a waiting key's priority raised from old to prio.
func (m *metrics[K]) move(old, prio int) {
	if m.depthPrio != nil {
		m.depthPrio.Dec(old)
		m.depthPrio.Inc(prio)
	}
}

func (m *metrics[K]) add(key K, prio int) {
	m.adds.Inc()
	m.inc(prio)
	if _, ok := m.addTimes[key]; !ok {
		m.addTimes[key] = time.Now()
	}
}

func (m *metrics[K]) get(key K, prio int) {
	now := time.Now()
	m.dec(prio)
	m.processingSince[key] = now
	if t, ok := m.addTimes[key]; ok {
		m.latency.Observe(now.Sub(t).Seconds())
		delete(m.addTimes, key)
	}
}

func (m *metrics[K]) done(key K) {
	if t, ok := m.processingSince[key]; ok {
		m.workDuration.Observe(time.Since(t).Seconds())
		delete(m.processingSince, key)
	}
}

func (m *metrics[K]) retry() { m.retries.Inc() }

func (m *metrics[K]) updateUnfinished() {
	now := time.Now()
	var total, longest float64
	for _, t := range m.processingSince {
		s := now.Sub(t).Seconds()
		total += s
		longest = max(longest, s)
	}
	m.unfinished.Set(total)
	m.longest.Set(longest)
}

func (q *Queue[K]) metricsLoop(period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			q.mmu.Lock()
			if !q.shuttingDown.Load() {
				q.m.updateUnfinished()
			}
			q.mmu.Unlock()
		case <-q.stop:
			return
		}
	}
}
