package controller

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"

	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	igprom "github.com/informer-gen/informer-gen/integrations/prometheus"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"

	"github.com/informer-gen/informer-gen/examples/kubebuilder/internal/generated/informers"
)

// Setup adds the informer-gen factory (warm on every replica, started with
// the manager's caches, readyz check "informers"), the Widget controller and
// the class counter to mgr, and the informer's metrics to reg. reg receives the class counter's metrics
// (controller-runtime's metrics.Registry in main, so that they are served
// on the manager's /metrics beside controller-runtime's).
func Setup(mgr ctrl.Manager, reg prometheus.Registerer) (*informers.SharedInformerFactory, error) {
	// LIST/WATCH, relists, events and deliveries (informergen_*), and
	// client-go's informer_* families, from the runtime's hooks.
	rm, err := igprom.NewRuntimeMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("registering the runtime metrics: %w", err)
	}
	f := informers.NewSharedInformerFactory(mgr.GetConfig(), factory.Options{
		Metrics: func(name string) (reflector.Metrics, informer.Metrics) {
			return rm.Reflector(name), rm.Informer(name)
		},
	})
	widgets := f.Apps().V1().Widgets()
	if _, err := crinformers.Add(mgr, f, crinformers.Options{}); err != nil {
		return nil, err
	}
	if err := (&WidgetReconciler{
		Client:  mgr.GetClient(),
		Scheme:  mgr.GetScheme(),
		Widgets: widgets.Lister(),
	}).SetupWithManager(mgr, widgets.Informer()); err != nil {
		return nil, fmt.Errorf("creating the widget controller: %w", err)
	}
	counter, err := NewClassCounter(reg, widgets.Informer(), widgets.Lister())
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(counter); err != nil {
		return nil, fmt.Errorf("adding the class counter: %w", err)
	}
	// Cache size, sync and list/watch state of the informer, at scrape time.
	if err := reg.Register(igprom.NewInformerCollector(igprom.Informer(widgets.Informer()))); err != nil {
		return nil, fmt.Errorf("registering the informer metrics: %w", err)
	}
	return f, nil
}
