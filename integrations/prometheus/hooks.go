package prometheus

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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
// gauge in PromQL.
//
// It also holds client-go's informer families (k8s.io/component-base's
// clientgo/fifo provider registers them in the legacy registry, Cluster API
// in controller-runtime's), fed by the informer's pop loop
// (informer.Metrics.Process):
//
//	informer_queued_items               gauge     {name, group, version, resource}
//	informer_processing_latency_seconds histogram {name, group, version, resource}
//	informer_store_resource_version     gauge     {name, group, version, resource}
//
// with client-go's help strings and buckets: the changes received from the
// server and not yet applied to the cache, the seconds each batch of them
// took to apply (a watch event or a run of them, a LIST), and the 15 least
// significant digits of the cache's resourceVersion (not set while it is
// not a number). name is the informer's name; group, version and resource
// are read from it as the factory forms it
// ("foos.v1alpha1.samplecontroller.example.com", "pods.v1", either with
// "/<Projection>" after it), or are empty and name alone tells the series
// apart. Safe for concurrent use.
type RuntimeMetrics struct {
	lists     *prom.HistogramVec
	watches   *prom.CounterVec
	watchDur  *prom.HistogramVec
	relists   *prom.CounterVec
	events    *prom.CounterVec
	rejected  *prom.CounterVec
	lastSync  *prom.GaugeVec
	delivered *prom.CounterVec
	queued    *prom.GaugeVec
	process   *prom.HistogramVec
	storeRV   *prom.GaugeVec
}

// informerLabels are the labels of client-go's informer families.
var informerLabels = []string{"name", "group", "version", "resource"}

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
		queued: prom.NewGaugeVec(prom.GaugeOpts{Subsystem: "informer", Name: "queued_items",
			Help: "Number of items currently queued in the FIFO."}, informerLabels),
		process: prom.NewHistogramVec(prom.HistogramOpts{Subsystem: "informer", Name: "processing_latency_seconds",
			Help:    "Time taken to process events after popping from the queue.",
			Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}}, informerLabels),
		storeRV: prom.NewGaugeVec(prom.GaugeOpts{Subsystem: "informer", Name: "store_resource_version",
			Help: "The 15 least significant digits of the resource version of the store."}, informerLabels),
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
	m.queued = reuse(m.queued).(*prom.GaugeVec)
	m.process = reuse(m.process).(*prom.HistogramVec)
	m.storeRV = reuse(m.storeRV).(*prom.GaugeVec)
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

// Informer returns the hooks of the informer of resource (its name, the
// "resource" label of the informergen_ families and the "name" label of
// client-go's): set them as informer.Options.Metrics, or return them from
// factory.Options.Metrics as its second result. They observe the pop loop
// too (informer.Metrics.Process).
func (m *RuntimeMetrics) Informer(resource string) informer.Metrics {
	lv := informerLabelValues(resource)
	return informerHooks{
		delivered: m.delivered.MustCurryWith(prom.Labels{"resource": resource}),
		queued:    m.queued.WithLabelValues(lv...),
		process:   m.process.WithLabelValues(lv...),
		storeRV:   m.storeRV.WithLabelValues(lv...),
	}
}

// informerLabelValues returns the values of informerLabels for the informer
// named name: resource.version[.group][/Projection], as the factory names
// its informers, with a Kubernetes version (v1, v1beta2); another name
// leaves group, version and resource empty.
func informerLabelValues(name string) []string {
	gvr, _, _ := strings.Cut(name, "/")
	resource, rest, _ := strings.Cut(gvr, ".")
	version, group, _ := strings.Cut(rest, ".")
	if resource == "" || !isKubeVersion(version) {
		return []string{name, "", "", ""}
	}
	return []string{name, group, version, resource}
}

// isKubeVersion reports whether v is v<n>, v<n>alpha<n> or v<n>beta<n>.
func isKubeVersion(v string) bool {
	digits := func(s string) (rest string, ok bool) {
		t := strings.TrimLeft(s, "0123456789")
		return t, len(t) < len(s)
	}
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return false
	}
	if rest, ok = digits(rest); !ok || rest == "" {
		return ok
	}
	for _, level := range []string{"alpha", "beta"} {
		if r, found := strings.CutPrefix(rest, level); found {
			r, ok = digits(r)
			return ok && r == ""
		}
	}
	return false
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

type informerHooks struct {
	delivered       *prom.CounterVec
	queued, storeRV prom.Gauge
	process         prom.Observer
}

// Process implements informer.Metrics: the pop loop's observer is processed.
func (h informerHooks) Process() func(time.Duration, int, string) { return h.processed }

func (h informerHooks) processed(d time.Duration, queued int, resourceVersion string) {
	h.process.Observe(d.Seconds())
	h.queued.Set(float64(queued))
	// client-go's parseRVForMetricsWithTruncation: the last 15 digits stay
	// exact in a float64.
	rv := resourceVersion
	if len(rv) > 15 {
		rv = rv[len(rv)-15:]
	}
	if rv == "" {
		h.storeRV.Set(0)
	} else if n, err := strconv.ParseInt(rv, 10, 64); err == nil {
		h.storeRV.Set(float64(n))
	}
}

func (h informerHooks) Handler(reg *informer.Registration) func(string) {
	v := h.delivered.MustCurryWith(prom.Labels{"handler": reg.Name()})
	return handlerHooks{add: v.WithLabelValues("add"), update: v.WithLabelValues("update"), del: v.WithLabelValues("delete")}.delivered
}

type handlerHooks struct{ add, update, del prom.Counter }

func (h handlerHooks) delivered(ev string) {
	switch ev {
	case "add":
		h.add.Inc()
	case "update":
		h.update.Inc()
	default:
		h.del.Inc()
	}
}
