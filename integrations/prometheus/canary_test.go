package prometheus_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	igprom "github.com/informer-gen/informer-gen/integrations/prometheus"
	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// TestCanaryNotInMetrics: the redaction rule (docs/guide.md, "What reaches
// a log or an error") for metrics, whose label values come from fixed sets
// (results, reasons, event types) and names the user chose (informers,
// handlers, queues), never from objects. A factory with every metric of this
// package, over HTTP, sees Widgets with a canary in every string a Widget
// has, a malformed event holding it (rejected, counted by reason) and a
// handler that panics with the object; its work queue's keys are the
// objects' keys. No scraped metric may hold the canary.
func TestCanaryNotInMetrics(t *testing.T) {
	const canary = "cAnArY0hunter2"
	reg := prom.NewRegistry()
	m, err := igprom.NewRuntimeMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	provider, err := igprom.NewWorkqueueMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := lwt.NewServer(t)
	canaryWidget := func(name string) *lwt.Widget {
		return &lwt.Widget{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"l": canary}, Annotations: map[string]string{"a": canary}},
			Spec:       lwt.WidgetSpec{NodeName: canary},
		}
	}
	srv.Add(canaryWidget("a"))
	var (
		rejected = make(chan error, 16)
		panicked = make(chan struct{}, 16)
	)
	opts := factory.Options{HTTPClient: srv.HTTPClient(), Metrics: func(name string) (reflector.Metrics, informer.Metrics) {
		return m.Reflector(name), m.Informer(name)
	}}
	opts.Reflector.WatchErrorHandler = func(_ context.Context, err error) {
		select {
		case rejected <- err:
		default:
		}
	}
	opts.Types = []factory.TypeOverride{factory.TypeOptions[*lwt.Widget]{Type: widgetType, Informer: func(o *informer.Options[*lwt.Widget]) {
		o.HandlerPanic = func(context.Context, informer.HandlerPanicInfo) {
			select {
			case panicked <- struct{}{}:
			default:
			}
		}
	}}}
	f := factory.New(srv.Config(), opts)
	defer f.Shutdown()
	c := igprom.NewInformerCollector()
	c.AddFunc(igprom.FactoryInformers(f))
	reg.MustRegister(c)
	q := workqueue.New(workqueue.Options[string]{Name: "canary", Metrics: provider})
	defer q.ShutDown()
	inf := factory.InformerFor(f, widgetType)
	if _, err := inf.AddHandler(informer.HandlerFuncs[*lwt.Widget]{AddFunc: func(w *lwt.Widget, _ bool) {
		q.Add(w.Namespace + "/" + w.Name)
		if w.Name == "p" {
			panic(fmt.Sprint(w))
		}
	}}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound on hangs, not a speed check
	defer cancel()
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitForWatchers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	srv.Add(canaryWidget("p"))
	srv.SendRaw([]byte(`{"type":"ADDED","object":{"apiVersion":"test.informer-gen.dev/v1","kind":"Widget","metadata":{"namespace":"ns","name":"bad","resourceVersion":"40","labels":{"l":"` + canary + `"}},"spec":{"nodeName":"` + canary + `","size":"` + canary + `"}}}` + "\n"))
	select {
	case <-panicked:
	case <-ctx.Done():
		t.Fatal("the handler did not panic")
	}
	select {
	case <-rejected:
	case <-ctx.Done():
		t.Fatal("the malformed event was not reported")
	}

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var rejectedSeen bool
	for _, mf := range families {
		text := mf.String()
		if strings.HasPrefix(mf.GetName(), "informergen_reflector_rejected") {
			rejectedSeen = true
		}
		if strings.Contains(text, canary) {
			t.Errorf("metric %s holds the canary: %.600s", mf.GetName(), text)
		}
	}
	if !rejectedSeen || len(families) < 10 {
		t.Errorf("%d metric families scraped (rejected events among them: %v): the test no longer sees the metrics", len(families), rejectedSeen)
	}
}
