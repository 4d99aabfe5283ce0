// Package fakeclient_test runs the example's generated informers over
// client-go's fake clientsets, as a controller's unit tests do.
package fakeclient_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/informer-gen/informer-gen/runtime/clientsetconfig"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"

	"github.com/informer-gen/informer-gen/examples/builtin/generated/informers"
)

// Both of client-go's fake constructors: NewClientset, and
// NewSimpleClientset, deprecated and still what most controllers' tests
// and older client-gen fakes use, whose objects carry no resourceVersion.
// Over either, the generated factory syncs the fake's objects and sees the
// test's writes through the fake's watch.
func TestGeneratedInformersOverFakeClientsets(t *testing.T) {
	for name, newFake := range map[string]func(...runtime.Object) kubernetes.Interface{
		"NewClientset":       func(o ...runtime.Object) kubernetes.Interface { return kubefake.NewClientset(o...) },
		"NewSimpleClientset": func(o ...runtime.Object) kubernetes.Interface { return kubefake.NewSimpleClientset(o...) },
	} {
		t.Run(name, func(t *testing.T) {
			cs := newFake(
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Data: map[string]string{"v": "1"}},
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "b"}, Data: map[string]string{"v": "2"}},
			)
			f := informers.NewSharedInformerFactory(clientsetconfig.For(cs), factory.Options{})
			defer f.Shutdown()
			cms := f.Core().V1().ConfigMaps()
			rec := new(runtimetest.Recorder[*corev1.ConfigMap]) // requests the informer before Start, as with client-go
			if _, err := cms.Informer().AddHandler(rec, informer.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			f.Start(ctx)
			if err := f.WaitForCacheSync(ctx); err != nil {
				t.Fatal(err)
			}
			if a, err := cms.Lister().ConfigMaps("ns").Get("a"); err != nil || a.Data["v"] != "1" {
				t.Fatalf("lister ns/a = %v, %v; want the fake's object", a, err)
			}
			c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}, Data: map[string]string{"v": "3"}}
			if _, err := cs.CoreV1().ConfigMaps("ns").Create(ctx, c, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := cs.CoreV1().ConfigMaps("other").Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			// The fake's watch starts from the LIST's resourceVersion, so
			// both writes arrive however late the watch began.
			if err := rec.WaitFor(ctx, func(m map[string]*corev1.ConfigMap) bool { return m["ns/c"] != nil && len(m) == 2 }); err != nil {
				t.Fatalf("the fake's writes did not reach the cache: %v; events %v", err, rec.Events())
			}
			// Handlers run after the cache is written: the lister has both.
			if all, err := cms.Lister().List(labels.Everything()); err != nil || len(all) != 2 {
				t.Errorf("lister holds %d objects (%v), want 2", len(all), err)
			}
			if _, err := cms.Lister().ConfigMaps("ns").Get("c"); err != nil {
				t.Errorf("lister ns/c: %v", err)
			}
			if err := rec.Err(); err != nil {
				t.Error(err)
			}
		})
	}
}
