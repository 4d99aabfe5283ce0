package prometheus_test

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

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
		// The backoff before relisting after a short watch, and the turn
		// of the request budget the watch after that LIST waits for.
		time.Sleep(2 * time.Second)
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}

		rv, err := strconv.ParseFloat(src.ResourceVersion(), 64)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{
			// The initial LIST, the event, the relist (Compact made the
			// watch expire).
			"informer_processing_latency_seconds":         3,
			"informer_queued_items":                       0,
			"informer_store_resource_version":             rv,
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
				if strings.HasPrefix(mf.GetName(), "informergen_") && labels["resource"] != "configmaps.v1" {
					t.Errorf("%s series without resource=configmaps.v1: %v", mf.GetName(), labels)
				}
				if strings.HasPrefix(mf.GetName(), "informer_") {
					if want := map[string]string{"name": "configmaps.v1", "group": "", "version": "v1", "resource": "configmaps"}; !maps.Equal(labels, want) {
						t.Errorf("%s series labelled %v, want %v", mf.GetName(), labels, want)
					}
				}
				switch mf.GetName() {
				case "informer_queued_items":
					got[mf.GetName()] = s.GetGauge().GetValue()
				case "informer_store_resource_version":
					got[mf.GetName()] = s.GetGauge().GetValue()
				case "informer_processing_latency_seconds":
					got[mf.GetName()] = float64(s.GetHistogram().GetSampleCount())
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

// rejectingLW is a source behind a broken proxy: its first LIST has an
// item without a name, and its first three watches each send one event the
// Reflector refuses (a resourceVersion that is not a number, an
// undecodable object, a resourceVersion older than the watch's).
type rejectingLW struct {
	*runtimetest.Source[*corev1.ConfigMap]
	lists, watches atomic.Int32
}

func (l *rejectingLW) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[*corev1.ConfigMap], error) {
	res, err := l.Source.List(ctx, opts)
	if err == nil && l.lists.Add(1) == 1 && len(res.Items) > 0 {
		o := res.Items[0].DeepCopy()
		o.Name = ""
		res.Items[0] = o
	}
	return res, err
}

func (l *rejectingLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	var ev watch.Event
	switch l.watches.Add(1) {
	case 1:
		o := cm("x")
		o.ResourceVersion = "notanumber"
		ev = watch.Event{Type: watch.Modified, Object: o}
	case 2:
		ev = watch.Event{Type: watch.Modified, Object: &reflector.MalformedObject{Err: errors.New("garbage")}}
	case 3:
		o := cm("x")
		o.ResourceVersion = "1"
		ev = watch.Event{Type: watch.Modified, Object: o}
	default:
		return l.Source.Watch(ctx, opts)
	}
	w := watch.NewFakeWithChanSize(1, false)
	w.Action(ev.Type, ev.Object)
	return w, nil
}

// Every LIST and watch event the Reflector refuses is counted in
// informergen_reflector_rejected_total, by reason.
func TestRejectedMetric(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prom.NewRegistry()
		m, err := igprom.NewRuntimeMetrics(reg)
		if err != nil {
			t.Fatal(err)
		}
		lw := &rejectingLW{Source: runtimetest.NewSource(runtimetest.SourceOptions{}, cm("a"), cm("b"))}
		noWL := false
		inf := informer.New[*corev1.ConfigMap](lw, informer.Options[*corev1.ConfigMap]{
			Reflector: reflector.Options{Name: "configmaps.v1", WatchList: &noWL, Metrics: m.Reflector("configmaps.v1")},
		})
		ctx, cancel := context.WithCancel(klog.NewContext(t.Context(), logr.Discard()))
		done := make(chan error)
		go func() { done <- inf.Run(ctx) }()
		time.Sleep(time.Minute)
		synctest.Wait()
		if !inf.HasSynced() || inf.LastError() != nil || lw.watches.Load() != 4 {
			t.Errorf("after a minute: synced %v, LastError %v, %d watches; want synced, nil, 4", inf.HasSynced(), inf.LastError(), lw.watches.Load())
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for reason, want := range map[string]float64{
			"invalid_object":           1,
			"invalid_resource_version": 1,
			"malformed":                1,
			"stale_resource_version":   1,
			"other":                    0,
		} {
			if got := testutil.ToFloat64(rejectedCounter(t, reg, reason)); got != want {
				t.Errorf("rejected{reason=%q} = %v, want %v", reason, got, want)
			}
		}
	})
}

// rejectedCounter returns the series of informergen_reflector_rejected_total
// for configmaps.v1 and reason, gathered from reg.
func rejectedCounter(t *testing.T, reg *prom.Registry, reason string) prom.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "informergen_reflector_rejected_total" {
			continue
		}
		for _, s := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["resource"] == "configmaps.v1" && labels["reason"] == reason {
				c := prom.NewCounter(prom.CounterOpts{Name: "rejected"})
				c.Add(s.GetCounter().GetValue())
				return c
			}
		}
	}
	t.Fatalf("no informergen_reflector_rejected_total series for reason %q", reason)
	return nil
}
