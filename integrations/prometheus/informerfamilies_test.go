package prometheus_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/clientgo/fifo" // client-go's informer metrics provider

	igprom "github.com/informer-gen/informer-gen/integrations/prometheus"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// informerFamilies are client-go's informer families, which
// k8s.io/component-base's clientgo/fifo provider registers.
var informerFamilies = []string{
	"informer_queued_items",
	"informer_processing_latency_seconds",
	"informer_store_resource_version",
}

// TestSameInformerFamiliesAsClientGo runs a client-go informer whose metrics
// component-base's provider exports and one of ours with RuntimeMetrics'
// hooks, and compares every informer_ family series by series: type, help
// (component-base puts its stability level, "[ALPHA] ", before it), labels,
// buckets.
func TestSameInformerFamiliesAsClientGo(t *testing.T) {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	name, err := cache.NewInformerName("client-go-informer")
	if err != nil {
		t.Fatal(err)
	}
	defer name.Release()
	cs := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithInformerName(name))
	f.Core().V1().ConfigMaps().Informer()
	ctx, cancel := context.WithCancel(t.Context())
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	cancel()
	f.Shutdown()

	reg := prom.NewRegistry()
	m, err := igprom.NewRuntimeMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: gvr.GroupResource()}, cm("a"))
	noWL := false
	inf := informer.New[*corev1.ConfigMap](src, informer.Options[*corev1.ConfigMap]{
		Reflector: reflector.Options{Name: "configmaps.v1", WatchList: &noWL},
		Metrics:   m.Informer("configmaps.v1"),
	})
	ctx, cancel = context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	<-inf.Synced()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	want := shapesOf(t, legacyregistry.DefaultGatherer, informerFamilies, "client-go-informer")
	got := shapesOf(t, reg, informerFamilies, "configmaps.v1")
	for _, fam := range informerFamilies {
		w, ok := want[fam]
		if !ok {
			t.Errorf("client-go exposes no %s series (test setup)", fam)
			continue
		}
		w.help = strings.TrimPrefix(w.help, "[ALPHA] ")
		g, ok := got[fam]
		if !ok {
			t.Errorf("%s: no series of ours", fam)
			continue
		}
		if g.typ != w.typ || g.help != w.help || !slices.Equal(g.labels, w.labels) || !slices.Equal(g.buckets, w.buckets) {
			t.Errorf("%s differs from client-go's:\n got %+v\nwant %+v", fam, g, w)
		}
	}
}

// A registry that holds client-go's informer families already, as
// controller-runtime's does in a binary that imports Cluster API's
// util/controller (its own copy of component-base's definitions, without
// the stability level), gets no second family: RuntimeMetrics feeds those.
func TestInformerFamiliesReuseRegistered(t *testing.T) {
	labels := []string{"name", "group", "version", "resource"}
	queued := prom.NewGaugeVec(prom.GaugeOpts{Subsystem: "informer", Name: "queued_items",
		Help: "Number of items currently queued in the FIFO."}, labels)
	latency := prom.NewHistogramVec(prom.HistogramOpts{Subsystem: "informer", Name: "processing_latency_seconds",
		Help:    "Time taken to process events after popping from the queue.",
		Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}}, labels)
	rv := prom.NewGaugeVec(prom.GaugeOpts{Subsystem: "informer", Name: "store_resource_version",
		Help: "The 15 least significant digits of the resource version of the store."}, labels)
	reg := prom.NewRegistry()
	reg.MustRegister(queued, latency, rv)
	m, err := igprom.NewRuntimeMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	name := "foos.v1alpha1.samplecontroller.example.com/FooSummary"
	processed := m.Informer(name).Process()
	processed(0, 7, "1234567890123456789")
	lv := []string{name, "samplecontroller.example.com", "v1alpha1", "foos"}
	if got := testutil.ToFloat64(queued.WithLabelValues(lv...)); got != 7 {
		t.Errorf("the registered informer_queued_items = %v, want 7", got)
	}
	if got := testutil.ToFloat64(rv.WithLabelValues(lv...)); got != 567890123456789 {
		t.Errorf("the registered informer_store_resource_version = %v, want the last 15 digits, 567890123456789", got)
	}
	if n := testutil.CollectAndCount(latency, "informer_processing_latency_seconds"); n != 1 {
		t.Errorf("%d series in the registered histogram, want 1", n)
	}
	// A resourceVersion that is not a number leaves the gauge as it was.
	processed(0, 0, "opaque")
	if got := testutil.ToFloat64(rv.WithLabelValues(lv...)); got != 567890123456789 {
		t.Errorf("after a resourceVersion that is not a number the gauge is %v, want it unchanged", got)
	}
}
