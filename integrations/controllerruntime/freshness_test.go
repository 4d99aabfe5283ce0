package controllerruntime_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	toolscache "k8s.io/client-go/tools/cache"

	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

var configMapType = factory.Type[*corev1.ConfigMap]{
	Resource:    corev1.SchemeGroupVersion.WithResource("configmaps"),
	Namespaced:  true,
	AddToScheme: corev1.AddToScheme,
}

// TestLastStoreSyncResourceVersionIsTheStores is the guarantee KEP-5647's
// consumers rely on: once GetStore().LastStoreSyncResourceVersion() has
// reached r, a read of the store returns the object at r or newer. The pop
// loop is held in the middle of applying an update (an index func blocks)
// while the watch has delivered the update and a bookmark after it: the
// Reflector's resourceVersion (which the adapter used to report here) is
// then ahead of the store.
func TestLastStoreSyncResourceVersionIsTheStores(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cm := func(v string) *corev1.ConfigMap {
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Data: map[string]string{"v": v}}
		}
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: configMapType.Resource.GroupResource()}, cm("1"))
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*corev1.ConfigMap]{Type: configMapType, ListerWatcher: src})
		f := factory.New(nil, opts)
		defer f.Shutdown()
		shared := crinformers.NewSharedInformers(f)
		crinformers.Share(shared, configMapType)
		inf := shared.NewInformer(nil, &corev1.ConfigMap{}, 0, nil)

		block := make(chan struct{})
		var once sync.Once
		release := func() { once.Do(func() { close(block) }) }
		defer release()
		var blocked atomic.Bool
		if err := inf.AddIndexers(toolscache.Indexers{"v": func(obj any) ([]string, error) {
			if obj.(*corev1.ConfigMap).Data["v"] == "2" && blocked.CompareAndSwap(false, true) {
				<-block
			}
			return nil, nil
		}}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		st := inf.GetStore()
		upd, err := src.Update(cm("2"))
		if err != nil {
			t.Fatal(err)
		}
		src.Bookmark()
		synctest.Wait() // the pop loop holds the update
		if rv := st.LastStoreSyncResourceVersion(); atLeast(t, rv, upd.ResourceVersion) {
			t.Fatalf("LastStoreSyncResourceVersion = %s while the store has not applied the update at %s", rv, upd.ResourceVersion)
		}
		release()
		synctest.Wait()
		rv := st.LastStoreSyncResourceVersion()
		if !atLeast(t, rv, src.ResourceVersion()) {
			t.Fatalf("after the bookmark, LastStoreSyncResourceVersion = %s, want %s", rv, src.ResourceVersion())
		}
		obj, ok, err := st.GetByKey("ns/a")
		if err != nil || !ok || obj.(*corev1.ConfigMap).ResourceVersion != upd.ResourceVersion {
			t.Fatalf("store read after LastStoreSyncResourceVersion %s: %v %v %v, want a@%s", rv, obj, ok, err, upd.ResourceVersion)
		}
	})
}

func atLeast(t *testing.T, rv, want string) bool {
	t.Helper()
	if rv == "" {
		return false
	}
	c, err := resourceversion.CompareResourceVersion(rv, want)
	if err != nil {
		t.Fatalf("comparing %q and %q: %v", rv, want, err)
	}
	return c >= 0
}
