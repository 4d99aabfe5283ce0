package workqueue

import (
	"time"

	clientgo "k8s.io/client-go/util/workqueue"
)

// PriorityMetricsProvider is a metrics provider (Options.Metrics, client-go's
// workqueue.MetricsProvider) that also reports the depth per priority. When
// the queue's provider implements it, the queue calls
// NewDepthMetricWithPriority instead of NewDepthMetric (the shape of
// controller-runtime's MetricsProviderWithPriority, whose workqueue_depth
// has a "priority" label).
type PriorityMetricsProvider interface {
	clientgo.MetricsProvider
	// NewDepthMetricWithPriority: keys waiting to be processed, by the
	// priority they wait at.
	NewDepthMetricWithPriority(name string) PriorityGauge
}

// PriorityGauge is a depth gauge per priority.
type PriorityGauge interface {
	Inc(priority int)
	Dec(priority int)
}

// metrics is the per-queue state behind the hooks; every method runs with the
// queue's lock held.
type metrics[K comparable] struct {
	depth        clientgo.GaugeMetric // nil when depthPrio is set
	depthPrio    PriorityGauge        // nil unless the provider has priorities
	adds         clientgo.CounterMetric
	latency      clientgo.HistogramMetric
	workDuration clientgo.HistogramMetric
	unfinished   clientgo.SettableGaugeMetric
	longest      clientgo.SettableGaugeMetric
	retries      clientgo.CounterMetric

	addTimes        map[K]time.Time
	processingSince map[K]time.Time
}

func newMetrics[K comparable](p clientgo.MetricsProvider, name string) *metrics[K] {
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
