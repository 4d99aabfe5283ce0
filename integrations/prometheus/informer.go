package prometheus

import (
	"sync"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// InformerSource is what InformerCollector reads from one informer at
// scrape time; Informer builds it from a generated informer.
type InformerSource struct {
	// Name is the informer's name (the "informer" label).
	Name string
	// Objects returns the number of cached objects.
	Objects func() int
	// Synced reports whether the initial list is in the cache.
	Synced func() bool
	// LastError returns the last list/watch error, nil once one succeeded.
	LastError func() error
	// Handlers, when not nil, returns the informer's handler registrations,
	// whose Backlog (tracked when the informer has Options.Metrics) is
	// exported.
	Handlers func() []*informer.Registration
}

// Informer returns the InformerSource of inf.
func Informer[T store.Object[T]](inf *informer.Informer[T]) InformerSource {
	return InformerSource{
		Name:      inf.Name(),
		Objects:   func() int { return inf.Indexer().Len() },
		Synced:    inf.HasSynced,
		LastError: inf.LastError,
		Handlers:  inf.Handlers,
	}
}

// FactoryInformers returns the InformerSources of every informer f has
// created so far; pass it to InformerCollector.AddFunc so that informers
// created later are collected too.
func FactoryInformers(f *factory.Factory) func() []InformerSource {
	return func() []InformerSource {
		var out []InformerSource
		for _, g := range f.Informers() {
			gi := g.Informer()
			out = append(out, InformerSource{Name: gi.Name(), Objects: gi.Len, Synced: gi.HasSynced, LastError: gi.LastError, Handlers: gi.Handlers})
		}
		return out
	}
}

// The informer families, under the prefix informergen_ (no client-go or
// controller-runtime family exists for them).
var (
	informerObjectsDesc = prom.NewDesc("informergen_informer_objects",
		"Number of objects in the informer's cache.", []string{"informer"}, nil)
	informerSyncedDesc = prom.NewDesc("informergen_informer_synced",
		"1 once the informer's cache holds its initial list, else 0.", []string{"informer"}, nil)
	informerErrorDesc = prom.NewDesc("informergen_informer_list_watch_failing",
		"1 while the informer's last list or watch failed (until one succeeds), else 0.", []string{"informer"}, nil)
	handlerBacklogDesc = prom.NewDesc("informergen_handler_backlog",
		"Notifications queued for a handler and not yet delivered.", []string{"informer", "handler"}, nil)
	handlerLagDesc = prom.NewDesc("informergen_handler_backlog_age_seconds",
		"Seconds since the oldest notification not yet delivered to a handler was queued; 0 when none.", []string{"informer", "handler"}, nil)
)

// InformerCollector is a prometheus.Collector of the state of informers,
// read at scrape time (it costs nothing between scrapes):
//
//	informergen_informer_objects{informer}              gauge
//	informergen_informer_synced{informer}               gauge (0 or 1)
//	informergen_informer_list_watch_failing{informer}   gauge (0 or 1)
//	informergen_handler_backlog{informer, handler}      gauge
//	informergen_handler_backlog_age_seconds{informer, handler} gauge
//
// (the handler families only for informers with Options.Metrics, which
// tracks backlogs).
//
// Safe for concurrent use; Add may be called while it is registered.
type InformerCollector struct {
	mu      sync.Mutex
	sources []InformerSource
	funcs   []func() []InformerSource
}

// AddFunc adds sources read at every scrape (FactoryInformers, say).
func (c *InformerCollector) AddFunc(fn func() []InformerSource) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.funcs = append(c.funcs, fn)
}

// NewInformerCollector returns a collector of sources; register it with
// prometheus.Registerer.Register (it is an error, not a reuse, to register
// two InformerCollectors in one registry: add the sources to one).
func NewInformerCollector(sources ...InformerSource) *InformerCollector {
	return &InformerCollector{sources: sources}
}

// Add adds sources to the collector.
func (c *InformerCollector) Add(sources ...InformerSource) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sources = append(c.sources, sources...)
}

// Describe implements prometheus.Collector.
func (c *InformerCollector) Describe(ch chan<- *prom.Desc) {
	ch <- informerObjectsDesc
	ch <- informerSyncedDesc
	ch <- informerErrorDesc
	ch <- handlerBacklogDesc
	ch <- handlerLagDesc
}

// Collect implements prometheus.Collector.
func (c *InformerCollector) Collect(ch chan<- prom.Metric) {
	c.mu.Lock()
	sources := c.sources
	funcs := c.funcs
	c.mu.Unlock()
	for _, fn := range funcs {
		sources = append(sources[:len(sources):len(sources)], fn()...)
	}
	now := time.Now()
	for _, s := range sources {
		if s.Handlers != nil {
			for _, r := range s.Handlers() {
				if !r.BacklogTracked() {
					continue
				}
				n, oldest := r.Backlog()
				age := 0.0
				if !oldest.IsZero() {
					age = now.Sub(oldest).Seconds()
				}
				ch <- prom.MustNewConstMetric(handlerBacklogDesc, prom.GaugeValue, float64(n), s.Name, r.Name())
				ch <- prom.MustNewConstMetric(handlerLagDesc, prom.GaugeValue, age, s.Name, r.Name())
			}
		}
		ch <- prom.MustNewConstMetric(informerObjectsDesc, prom.GaugeValue, float64(s.Objects()), s.Name)
		ch <- prom.MustNewConstMetric(informerSyncedDesc, prom.GaugeValue, bool01(s.Synced()), s.Name)
		ch <- prom.MustNewConstMetric(informerErrorDesc, prom.GaugeValue, bool01(s.LastError() != nil), s.Name)
	}
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
