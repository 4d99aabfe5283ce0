package localapi_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	appsv1 "github.com/informer-gen/informer-gen/examples/kubebuilder/api/v1"
	"github.com/informer-gen/informer-gen/examples/kubebuilder/internal/controller"
	"github.com/informer-gen/informer-gen/examples/kubebuilder/test/localapi"
)

var server *localapi.Server

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a busy machine starts it slowly
	var err error
	server, err = localapi.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the local API server:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = server.Stop(context.Background())
	os.Exit(code)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute) // minutes: CI machines are busy
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5m, last seen: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func get(url string) (int, string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestManagerEndToEnd runs the manager as cmd/main.go wires it
// (controller.Setup with controller-runtime's metrics.Registry, metrics and
// probes served), drives Widgets through it, and checks the Widget status,
// readiness and the /metrics exposition.
func TestManagerEndToEnd(t *testing.T) {
	ctx := context.Background()
	ns := "e2e"
	scheme := runtime.NewScheme()
	if err := appsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	metricsAddr, probeAddr := freeAddr(t), freeAddr(t)
	mgr, err := ctrl.NewManager(server.Config(), ctrl.Options{
		Scheme:                 scheme,
		MapperProvider:         localapi.MapperProvider,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: probeAddr,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Setup registers the workqueue_* families into metrics.Registry, where
	// importing controller-runtime registered them already: an error or a
	// panic here is the conflict this test exists for.
	if _, err := controller.Setup(mgr, metrics.Registry); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()

	c, err := client.New(server.Config(), client.Options{Scheme: scheme, Mapper: localapi.RESTMapper()})
	if err != nil {
		t.Fatal(err)
	}
	for i, class := range []string{"red", "red", "red", "blue"} {
		w := &appsv1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("w%d", i)}, Spec: appsv1.WidgetSpec{Class: class}}
		if err := c.Create(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	wantPeers := func(want map[string]int32) func() error {
		return func() error {
			for name, n := range want {
				var w appsv1.Widget
				if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &w); err != nil {
					return err
				}
				if w.Status.Peers != n {
					return fmt.Errorf("%s: status.peers = %d, want %d", name, w.Status.Peers, n)
				}
			}
			return nil
		}
	}
	eventually(t, "peers counted", wantPeers(map[string]int32{"w0": 3, "w1": 3, "w2": 3, "w3": 1}))

	// Moving w0 to blue requeues the peers of its old class and its new one.
	var w0 appsv1.Widget
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "w0"}, &w0); err != nil {
		t.Fatal(err)
	}
	w0.Spec.Class = "blue"
	if err := c.Update(ctx, &w0); err != nil {
		t.Fatal(err)
	}
	eventually(t, "peers recounted after a class change", wantPeers(map[string]int32{"w0": 2, "w1": 2, "w2": 2, "w3": 2}))

	eventually(t, "readyz", func() error {
		code, body, err := get("http://" + probeAddr + "/readyz/informers")
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("GET /readyz/informers: %d %q %v", code, body, err)
		}
		code, body, err = get("http://" + probeAddr + "/readyz")
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("GET /readyz: %d %q %v", code, body, err)
		}
		return nil
	})

	var families map[string]*dto.MetricFamily
	eventually(t, "class gauge on /metrics", func() error {
		code, body, err := get("http://" + metricsAddr + "/metrics")
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("GET /metrics: %d %v", code, err)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err = parser.TextToMetricFamilies(strings.NewReader(body))
		if err != nil {
			return fmt.Errorf("parsing /metrics: %w", err)
		}
		if v := value(families["widget_class_members"], map[string]string{"namespace": ns, "class": "blue"}); v != 2 {
			return fmt.Errorf("widget_class_members{class=blue} = %v, want 2", v)
		}
		inf := map[string]string{"informer": "widgets.v1.apps.example.com"}
		if v := value(families["informergen_informer_objects"], inf); v != 4 {
			return fmt.Errorf("informergen_informer_objects = %v, want 4", v)
		}
		if v := value(families["informergen_informer_synced"], inf); v != 1 {
			return fmt.Errorf("informergen_informer_synced = %v, want 1", v)
		}
		// client-go's informer families, fed by the pop loop: the initial
		// LIST and the events were applied, nothing is left queued, and the
		// cache reached a resourceVersion.
		cg := map[string]string{"name": "widgets.v1.apps.example.com", "group": "apps.example.com", "version": "v1", "resource": "widgets"}
		if v := value(families["informer_store_resource_version"], cg); v <= 0 {
			return fmt.Errorf("informer_store_resource_version = %v, want > 0", v)
		}
		if v := value(families["informer_queued_items"], cg); v != 0 {
			return fmt.Errorf("informer_queued_items = %v, want 0", v)
		}
		if v := value(families["informer_processing_latency_seconds"], cg); v < 1 {
			return fmt.Errorf("informer_processing_latency_seconds has %v samples, want > 0", v)
		}
		return nil
	})

	// Every workqueue family has a series for controller-runtime's "widget"
	// controller and one for our "widget-classes" queue, with the same label
	// names: one family, one definition.
	for _, name := range []string{
		"workqueue_depth", "workqueue_adds_total", "workqueue_queue_duration_seconds",
		"workqueue_work_duration_seconds", "workqueue_unfinished_work_seconds",
		"workqueue_longest_running_processor_seconds", "workqueue_retries_total",
	} {
		mf := families[name]
		if mf == nil {
			t.Errorf("/metrics has no %s", name)
			continue
		}
		crLabels := labelNames(mf, "widget")
		ourLabels := labelNames(mf, controller.ClassesQueueName)
		if crLabels == nil || ourLabels == nil || !slices.Equal(crLabels, ourLabels) {
			t.Errorf("%s: labels of controller-runtime's widget queue %v, of ours %v; want both present and equal", name, crLabels, ourLabels)
		}
	}
	if v := value(families["workqueue_adds_total"], map[string]string{"name": controller.ClassesQueueName, "controller": controller.ClassesQueueName}); v < 1 {
		t.Errorf("workqueue_adds_total of %s = %v, want > 0", controller.ClassesQueueName, v)
	}
}

// labelNames returns the sorted label names of mf's first series whose name
// label is queue, or nil.
func labelNames(mf *dto.MetricFamily, queue string) []string {
	for _, m := range mf.GetMetric() {
		var names []string
		mine := false
		for _, lp := range m.GetLabel() {
			names = append(names, lp.GetName())
			mine = mine || (lp.GetName() == "name" && lp.GetValue() == queue)
		}
		if mine {
			sort.Strings(names)
			return names
		}
	}
	return nil
}

// value returns the gauge or counter value (a histogram's sample count) of
// mf's series with labels want (-1 when there is none).
func value(mf *dto.MetricFamily, want map[string]string) float64 {
	for _, m := range mf.GetMetric() {
		ok := true
		for k, v := range want {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == k && lp.GetValue() == v {
					found = true
				}
			}
			ok = ok && found
		}
		if !ok {
			continue
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
		return m.GetCounter().GetValue()
	}
	return -1
}
