package prometheus

import (
	"errors"
	"fmt"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// RuntimeMetrics holds the informergen_ families fed by the runtime's hooks
// (reflector.Metrics, informer.Metrics):
//
//	informergen_reflector_list_duration_seconds          histogram {resource, result}
//	informergen_reflector_watches_total                  counter   {resource, result}
//	informergen_reflector_watch_duration_seconds         histogram {resource}
//	informergen_reflector_relists_total                  counter   {resource, cause}
//	informergen_reflector_events_total                   counter   {resource, type}
//	informergen_reflector_rejected_total                 counter   {resource, reason}
//	informergen_reflector_last_sync_timestamp_seconds    gauge     {resource}
//	informergen_handler_deliveries_total                 counter   {resource, handler, event}
//
// result is "success" or "error"; cause is the one reflector.Metrics.Relist
// is given; type is the watch event type; handler is the Registration's
// name. The rejected family counts what the Reflector refused to apply (a
// watch event, or a whole LIST or WatchList initial stream:
// reflector.Metrics.Rejected, and the reflector package doc, "Hostile
// servers"), by reason: "malformed"
// (reflector.ErrMalformedEvent: undecodable, not the informer's type, an
// unknown event type), "invalid_object" (ErrInvalidObject: no valid key),
// "invalid_resource_version" (ErrInvalidResourceVersion) or
// "stale_resource_version" (ErrStaleResourceVersion); "other" for an error
// wrapping none of them. A rate above zero means a broken server or proxy. Seconds
// since the last synced resourceVersion is time() minus the timestamp
// gauge in PromQL. Safe for concurrent use.
type RuntimeMetrics struct {
	lists     *prom.HistogramVec
	watches   *prom.CounterVec
	watchDur  *prom.HistogramVec
	relists   *prom.CounterVec
	events    *prom.CounterVec
	rejected  *prom.CounterVec
	lastSync  *prom.GaugeVec
	delivered *prom.CounterVec
}

// NewRuntimeMetrics registers the families in reg, reusing identical ones
// already registered (a second RuntimeMetrics on one registry shares them).
func NewRuntimeMetrics(reg prom.Registerer) (*RuntimeMetrics, error) {
	m := &RuntimeMetrics{
		lists: prom.NewHistogramVec(prom.HistogramOpts{Name: "informergen_reflector_list_duration_seconds",
			Help: "Seconds a Reflector's LIST of a whole collection took, by result.", Buckets: prom.ExponentialBuckets(0.01, 4, 8)},
			[]string{"resource", "result"}),
		watches: prom.NewCounterVec(prom.CounterOpts{Name: "informergen_reflector_watches_total",
			Help: "WATCH requests a Reflector made, by result."}, []string{"resource", "result"}),
		watchDur: prom.NewHistogramVec(prom.HistogramOpts{Name: "informergen_reflector_watch_duration_seconds",
			Help: "Seconds a Reflector's watch stayed open.", Buckets: prom.ExponentialBuckets(1, 4, 6)},
			[]string{"resource"}),
		relists: prom.NewCounterVec(prom.CounterOpts{Name: "informergen_reflector_relists_total",
			Help: "Times a Reflector (re)built its cache from the server, by cause."}, []string{"resource", "cause"}),
		events: prom.NewCounterVec(prom.CounterOpts{Name: "informergen_reflector_events_total",
			Help: "Watch events a Reflector received, by type."}, []string{"resource", "type"}),
		rejected: prom.NewCounterVec(prom.CounterOpts{Name: "informergen_reflector_rejected_total",
			Help: "Watch events, LISTs and WatchList initial streams a Reflector refused to apply, by reason."}, []string{"resource", "reason"}),
		lastSync: prom.NewGaugeVec(prom.GaugeOpts{Name: "informergen_reflector_last_sync_timestamp_seconds",
			Help: "Unix time at which a Reflector's last synced resourceVersion last advanced."}, []string{"resource"}),
		delivered: prom.NewCounterVec(prom.CounterOpts{Name: "informergen_handler_deliveries_total",
			Help: "Notifications delivered to an informer's handler, by event."}, []string{"resource", "handler", "event"}),
	}
	var err error
	reuse := func(c any) any {
		e := reg.Register(c.(prom.Collector))
		if e == nil {
			return c
		}
		if are, ok := errors.AsType[prom.AlreadyRegisteredError](e); ok {
			if fmt.Sprintf("%T", are.ExistingCollector) == fmt.Sprintf("%T", c) {
				return are.ExistingCollector
			}
		}
		err = errors.Join(err, fmt.Errorf("runtime metrics: %w", e))
		return c
	}
	m.lists = reuse(m.lists).(*prom.HistogramVec)
	m.watches = reuse(m.watches).(*prom.CounterVec)
	m.watchDur = reuse(m.watchDur).(*prom.HistogramVec)
	m.relists = reuse(m.relists).(*prom.CounterVec)
	m.events = reuse(m.events).(*prom.CounterVec)
	m.rejected = reuse(m.rejected).(*prom.CounterVec)
	m.lastSync = reuse(m.lastSync).(*prom.GaugeVec)
	m.delivered = reuse(m.delivered).(*prom.CounterVec)
	return m, err
}

// Reflector returns the hooks of the Reflector(s) of resource (the
// "resource" label): set them as reflector.Options.Metrics, or return them
// from factory.Options.Metrics as its first result. They implement
// reflector.RejectMetrics too.
func (m *RuntimeMetrics) Reflector(resource string) reflector.Metrics {
	r := &reflectorHooks{
		listOK:   m.lists.WithLabelValues(resource, "success"),
		listErr:  m.lists.WithLabelValues(resource, "error"),
		watchOK:  m.watches.WithLabelValues(resource, "success"),
		watchErr: m.watches.WithLabelValues(resource, "error"),
		watchDur: m.watchDur.WithLabelValues(resource),
		lastSync: m.lastSync.WithLabelValues(resource),
		relists:  m.relists.MustCurryWith(prom.Labels{"resource": resource}),
		events:   m.events.MustCurryWith(prom.Labels{"resource": resource}),
		byType:   map[watch.EventType]prom.Counter{},
		byReason: map[string]prom.Counter{},
	}
	for _, reason := range rejectReasons {
		r.byReason[reason.name] = m.rejected.WithLabelValues(resource, reason.name)
	}
	r.byReason["other"] = m.rejected.WithLabelValues(resource, "other")
	for _, t := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted, watch.Bookmark} {
		r.byType[t] = r.events.WithLabelValues(string(t))
	}
	return r
}

// Informer returns the hooks of the informer of resource: set them as
// informer.Options.Metrics, or return them from factory.Options.Metrics as
// its second result.
func (m *RuntimeMetrics) Informer(resource string) informer.Metrics {
	return informerHooks{m.delivered.MustCurryWith(prom.Labels{"resource": resource})}
}

type reflectorHooks struct {
	listOK, listErr   prom.Observer
	watchOK, watchErr prom.Counter
	watchDur          prom.Observer
	lastSync          prom.Gauge
	relists, events   *prom.CounterVec
	byType            map[watch.EventType]prom.Counter
	byReason          map[string]prom.Counter
}

// rejectReasons are the reason labels of informergen_reflector_rejected_total,
// most specific first.
var rejectReasons = []struct {
	err  error
	name string
}{
	{reflector.ErrStaleResourceVersion, "stale_resource_version"},
	{reflector.ErrInvalidResourceVersion, "invalid_resource_version"},
	{reflector.ErrInvalidObject, "invalid_object"},
	{reflector.ErrMalformedEvent, "malformed"},
}

// Rejected implements reflector.Metrics.
func (r *reflectorHooks) Rejected(err error) {
	for _, reason := range rejectReasons {
		if errors.Is(err, reason.err) {
			r.byReason[reason.name].Inc()
			return
		}
	}
	r.byReason["other"].Inc()
}

func (r *reflectorHooks) ListDone(d time.Duration, err error) {
	if err != nil {
		r.listErr.Observe(d.Seconds())
		return
	}
	r.listOK.Observe(d.Seconds())
}

func (r *reflectorHooks) WatchStarted(err error) {
	if err != nil {
		r.watchErr.Inc()
		return
	}
	r.watchOK.Inc()
}

func (r *reflectorHooks) WatchDone(d time.Duration, _ error) { r.watchDur.Observe(d.Seconds()) }

func (r *reflectorHooks) Relist(cause string) { r.relists.WithLabelValues(cause).Inc() }

func (r *reflectorHooks) Event(t watch.EventType) {
	if c, ok := r.byType[t]; ok {
		c.Inc()
		return
	}
	r.events.WithLabelValues(string(t)).Inc()
}

func (r *reflectorHooks) Synced(string) { r.lastSync.SetToCurrentTime() }

type informerHooks struct{ delivered *prom.CounterVec }

func (h informerHooks) Handler(reg *informer.Registration) informer.HandlerMetrics {
	v := h.delivered.MustCurryWith(prom.Labels{"handler": reg.Name()})
	return handlerHooks{add: v.WithLabelValues("add"), update: v.WithLabelValues("update"), del: v.WithLabelValues("delete")}
}

type handlerHooks struct{ add, update, del prom.Counter }

func (h handlerHooks) Delivered(ev string) {
	switch ev {
	case "add":
		h.add.Inc()
	case "update":
		h.update.Inc()
	default:
		h.del.Inc()
	}
}
