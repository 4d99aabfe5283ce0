package reflector_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// recMetrics records every Metrics call as a line.
type recMetrics struct {
	mu    sync.Mutex
	calls []string
	rv    string
}

func (m *recMetrics) add(s string) { m.mu.Lock(); m.calls = append(m.calls, s); m.mu.Unlock() }
func (m *recMetrics) ListDone(d time.Duration, err error) {
	m.add(fmt.Sprintf("list %v err=%v", d, err != nil))
}
func (m *recMetrics) WatchStarted(err error) { m.add(fmt.Sprintf("watch err=%v", err != nil)) }
func (m *recMetrics) WatchDone(d time.Duration, err error) {
	m.add(fmt.Sprintf("watch done lasted=%v err=%v", d >= 2*time.Second, err != nil))
}
func (m *recMetrics) Relist(cause string)     { m.add("relist " + cause) }
func (m *recMetrics) Event(t watch.EventType) { m.add("event " + string(t)) }
func (m *recMetrics) Synced(rv string)        { m.mu.Lock(); m.rv = rv; m.mu.Unlock() }
func (m *recMetrics) Rejected(err error)      { m.add(fmt.Sprintf("rejected %v", err)) }

func (m *recMetrics) get() ([]string, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.calls), m.rv
}

// The hooks see a failed LIST, the initial relist, the watch with its
// events, a compaction (410: an expired relist) and the resourceVersions.
func TestReflectorMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
		src.FailNext("list", apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", fmt.Errorf("no")))
		m := &recMetrics{}
		noWL := false
		r := reflector.New(src, nopSink{}, reflector.Options{Name: "cms", WatchList: &noWL, Metrics: m})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); _ = r.Run(ctx) }()
		synctest.Wait()
		time.Sleep(time.Second) // the backoff after the failed LIST
		synctest.Wait()
		if r.LastSyncResourceVersion() == "" {
			t.Fatal("not listed after the backoff")
		}
		time.Sleep(time.Minute) // the watch lasts: the 410 relists at once
		src.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}})
		src.Bookmark()
		synctest.Wait()
		if _, rv := m.get(); rv != src.ResourceVersion() {
			t.Errorf("Synced saw resourceVersion %q last, want %q", rv, src.ResourceVersion())
		}
		src.Compact()
		synctest.Wait()
		cancel()
		<-done
		got, _ := m.get()
		want := []string{
			"relist initial",
			"list 0s err=true", // synctest: no time passes in a fake LIST
			"list 0s err=false",
			"watch err=false",
			"event ADDED",
			"event BOOKMARK",
			"event ERROR",
			"watch done lasted=true err=true",
			"relist expired",
			"list 0s err=false",
			"watch err=false",
			"watch done lasted=false err=false", // ended by cancel
		}
		if !slices.Equal(got, want) {
			t.Errorf("calls\n%q\nwant\n%q", got, want)
		}
	})
}

type nopSink struct{}

func (nopSink) Add(*corev1.ConfigMap) error               { return nil }
func (nopSink) Update(*corev1.ConfigMap) error            { return nil }
func (nopSink) Delete(*corev1.ConfigMap) error            { return nil }
func (nopSink) Replace([]*corev1.ConfigMap, string) error { return nil }
func (nopSink) Resync() error                             { return nil }
