package prometheus_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"

	igprom "github.com/informer-gen/informer-gen/integrations/prometheus"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// An informer run over a runtimetest source with RuntimeMetrics' hooks: the
// registry then holds its LIST, WATCH, relist, event and delivery series,
// and a second RuntimeMetrics on the same registry reuses the families.
func TestRuntimeMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prom.NewRegistry()
		m, err := igprom.NewRuntimeMetrics(reg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := igprom.NewRuntimeMetrics(reg); err != nil {
			t.Fatalf("second NewRuntimeMetrics on one registry: %v", err)
		}
		src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("a"), cm("b"))
		noWL := false
		inf := informer.New[*corev1.ConfigMap](src, informer.Options[*corev1.ConfigMap]{
			Reflector: reflector.Options{Name: "configmaps.v1", WatchList: &noWL, Metrics: m.Reflector("configmaps.v1")},
			Metrics:   m.Informer("configmaps.v1"),
		})
		hreg, err := inf.AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{}, informer.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- inf.Run(ctx) }()
		if err := informer.WaitForCacheSync(ctx, hreg); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Add(cm("c")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		src.Compact()
		time.Sleep(time.Second) // the backoff before relisting after a short watch
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}

		want := map[string]float64{
			"informergen_reflector_relists_total/initial": 1,
			"informergen_reflector_relists_total/expired": 1,
			"informergen_reflector_events_total/ADDED":    1,
			"informergen_reflector_events_total/ERROR":    1,
			"informergen_handler_deliveries_total/add":    3,
		}
		got := map[string]float64{}
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			for _, s := range mf.GetMetric() {
				labels := map[string]string{}
				for _, l := range s.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				if labels["resource"] != "configmaps.v1" {
					t.Errorf("%s series without resource=configmaps.v1: %v", mf.GetName(), labels)
				}
				switch mf.GetName() {
				case "informergen_reflector_relists_total":
					got[mf.GetName()+"/"+labels["cause"]] = s.GetCounter().GetValue()
				case "informergen_reflector_events_total":
					got[mf.GetName()+"/"+labels["type"]] = s.GetCounter().GetValue()
				case "informergen_handler_deliveries_total":
					if labels["handler"] != hreg.Name() {
						t.Errorf("handler label %q, want %q", labels["handler"], hreg.Name())
					}
					got[mf.GetName()+"/"+labels["event"]] = s.GetCounter().GetValue()
				case "informergen_reflector_list_duration_seconds":
					if labels["result"] == "success" && s.GetHistogram().GetSampleCount() != 2 {
						t.Errorf("successful LISTs = %d, want 2", s.GetHistogram().GetSampleCount())
					}
				case "informergen_reflector_watches_total":
					if labels["result"] == "success" && s.GetCounter().GetValue() != 2 {
						t.Errorf("watches = %v, want 2", s.GetCounter().GetValue())
					}
				case "informergen_reflector_last_sync_timestamp_seconds":
					if s.GetGauge().GetValue() == 0 {
						t.Error("last sync timestamp not set")
					}
				}
			}
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}
		if n := testutil.CollectAndCount(reg, "informergen_reflector_watch_duration_seconds"); n != 1 {
			t.Errorf("%d watch duration series, want 1", n)
		}
	})
}
