// Package prometheus exports informer-gen's runtime metrics to Prometheus
// under the names that client-go's and controller-runtime's users already
// chart and alert on.
//
// WorkqueueMetrics is a client-go workqueue.MetricsProvider (what
// runtime/workqueue's Options.Metrics takes) with
// exactly controller-runtime's (v0.25) workqueue metric families:
//
//	workqueue_depth                              gauge     {name, controller, priority}
//	workqueue_adds_total                         counter   {name, controller}
//	workqueue_queue_duration_seconds             histogram {name, controller}
//	workqueue_work_duration_seconds              histogram {name, controller}
//	workqueue_unfinished_work_seconds            gauge     {name, controller}
//	workqueue_longest_running_processor_seconds  gauge     {name, controller}
//	workqueue_retries_total                      counter   {name, controller}
//
// with the same help strings and buckets, and both name and controller set to
// the queue's name, as controller-runtime does for its own queues. The depth
// is reported per priority ("0", "-100" for the LowPriority of an initial
// list, ...), as controller-runtime's priority queue reports it, with its
// bound of 25 distinct priorities per queue. Existing dashboards and alerts
// therefore work unchanged.
//
// # Registering beside controller-runtime
//
// Importing controller-runtime's controller package registers these families
// in sigs.k8s.io/controller-runtime/pkg/metrics.Registry from an init func.
// NewWorkqueueMetrics does not fight that: for each family it registers its
// own collector or, when the registerer already holds an identical one
// (prometheus.AlreadyRegisteredError), reuses that collector. So
//
//	m, err := igprom.NewWorkqueueMetrics(metrics.Registry) // controller-runtime's registry
//	q := workqueue.New(workqueue.Options[string]{Name: "foo-controller", Metrics: m})
//
// puts the queue's series into the manager's /metrics beside those of
// controller-runtime's own controllers, in the same families. A registerer
// that holds a family of the same name but different labels or help (for
// example k8s.io/component-base's legacy workqueue metrics, labelled {name}
// only) is an error naming the family, never a panic. Give each queue a name
// no controller-runtime controller uses: two queues with one name share one
// series.
//
// # Informer metrics
//
// InformerCollector exports, at scrape time, what every informer already
// knows: informergen_informer_objects (cache size), informergen_informer_synced
// and informergen_informer_list_watch_failing, labelled {informer}. The
// prefix informergen_ is this project's: neither client-go nor
// controller-runtime has such families.
//
// RuntimeMetrics feeds further informergen_ families from the runtime's
// hooks (reflector.Metrics, informer.Metrics): LIST
// durations, WATCH counts and durations, relists by cause, watch events by
// type, events and LISTs the Reflector refused to apply by reason
// (informergen_reflector_rejected_total: a broken server or proxy), the time
// the last synced resourceVersion advanced, and deliveries per handler and
// event (see RuntimeMetrics for names and labels). For a whole factory:
//
//	m, err := igprom.NewRuntimeMetrics(metrics.Registry)
//	opts.Metrics = func(name string) (reflector.Metrics, informer.Metrics) {
//		return m.Reflector(name), m.Informer(name)
//	}
//
// (Options.Metrics is keyed by the informer's name, the one
// InformerCollector labels, so a kind's informer and its projections'
// report apart.)
//
// The same hooks feed client-go's informer families, under client-go's
// names, help strings and buckets (k8s.io/component-base's clientgo/fifo
// provider registers them, and Cluster API its copy in controller-runtime's
// registry, which RuntimeMetrics then reuses):
//
//	informer_queued_items                gauge     {name, group, version, resource}
//	informer_processing_latency_seconds  histogram {name, group, version, resource}
//	informer_store_resource_version      gauge     {name, group, version, resource}
//
// name is the informer's name, where client-go has the name the factory was
// given (informers.WithInformerName), so sum by group, version and resource
// to chart both alike.
//
// The import name of this package clashes with client_golang's; import it
// as igprom (or any name you like).
package prometheus
