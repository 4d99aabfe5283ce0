package prometheus_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	igprom "github.com/informer-gen/informer-gen/integrations/prometheus"
	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

var widgetType = factory.Type[*lwt.Widget]{
	Resource:    lwt.GVR,
	Namespaced:  true,
	AddToScheme: lwt.AddToScheme,
}

// A whole factory's informers, found at scrape time: cache size and the
// backlog (length and age) of a stuck handler.
func TestFactoryInformersBacklog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prom.NewRegistry()
		m, err := igprom.NewRuntimeMetrics(reg)
		if err != nil {
			t.Fatal(err)
		}
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()},
			&lwt.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
		opts := factory.Options{Metrics: func(name string) (reflector.Metrics, informer.Metrics) {
			return m.Reflector(name), m.Informer(name)
		}}
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: widgetType, ListerWatcher: src})
		f := factory.New(nil, opts)
		c := igprom.NewInformerCollector()
		c.AddFunc(igprom.FactoryInformers(f))
		reg.MustRegister(c)

		inf := factory.InformerFor(f, widgetType) // created after AddFunc: still collected
		release := make(chan struct{})
		hreg, err := inf.AddHandler(informer.HandlerFuncs[*lwt.Widget]{AddFunc: func(*lwt.Widget, bool) { <-release }}, informer.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		time.Sleep(5 * time.Second)
		name := inf.Name()
		want := `
# HELP informergen_handler_backlog Notifications queued for a handler and not yet delivered.
# TYPE informergen_handler_backlog gauge
informergen_handler_backlog{handler="` + hreg.Name() + `",informer="` + name + `"} 2
# HELP informergen_handler_backlog_age_seconds Seconds since the oldest notification not yet delivered to a handler was queued; 0 when none.
# TYPE informergen_handler_backlog_age_seconds gauge
informergen_handler_backlog_age_seconds{handler="` + hreg.Name() + `",informer="` + name + `"} 5
# HELP informergen_informer_objects Number of objects in the informer's cache.
# TYPE informergen_informer_objects gauge
informergen_informer_objects{informer="` + name + `"} 1
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
			"informergen_handler_backlog", "informergen_handler_backlog_age_seconds", "informergen_informer_objects"); err != nil {
			t.Error(err)
		}
		close(release)
		cancel()
		f.Shutdown()
	})
}
