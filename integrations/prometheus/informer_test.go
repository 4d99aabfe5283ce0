package prometheus_test

import (
	"context"
	"strings"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	igprom "github.com/informer-gen/informer-gen/integrations/prometheus"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

func cm(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

// TestInformerCollector scrapes a running informer's cache size, sync state
// and list/watch failure state.
func TestInformerCollector(t *testing.T) {
	src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("a"), cm("b"))
	inf := informer.New[*corev1.ConfigMap](src, informer.Options[*corev1.ConfigMap]{Reflector: reflector.Options{Name: "configmaps.v1"}})
	reg := prom.NewRegistry()
	c := igprom.NewInformerCollector()
	reg.MustRegister(c)
	c.Add(igprom.Informer(inf))

	want := func(objects, synced, failing string) string {
		return `
# HELP informergen_informer_list_watch_failing 1 while the informer's last list or watch failed (until one succeeds), else 0.
# TYPE informergen_informer_list_watch_failing gauge
informergen_informer_list_watch_failing{informer="configmaps.v1"} ` + failing + `
# HELP informergen_informer_objects Number of objects in the informer's cache.
# TYPE informergen_informer_objects gauge
informergen_informer_objects{informer="configmaps.v1"} ` + objects + `
# HELP informergen_informer_synced 1 once the informer's cache holds its initial list, else 0.
# TYPE informergen_informer_synced gauge
informergen_informer_synced{informer="configmaps.v1"} ` + synced + `
`
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want("0", "0", "0"))); err != nil {
		t.Errorf("before Run: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	if err := informer.WaitForCacheSync(ctx, inf); err != nil {
		t.Fatal(err)
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want("2", "1", "0"))); err != nil {
		t.Errorf("synced: %v", err)
	}
}
