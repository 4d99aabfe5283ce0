package controllerruntime_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

var configMapType = factory.Type[*corev1.ConfigMap]{
	Resource:    schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
	Namespaced:  true,
	AddToScheme: corev1.AddToScheme,
}

// TestRunnableCacheRemoveInformer: the Runnable's cache RemoveInformer stops
// and removes the factory's informer of the object's type (its handlers are
// stopped when it returns), and a later InformerFor starts a fresh one.
func TestRunnableCacheRemoveInformer(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: configMapType.Resource.GroupResource()}, cm)
	opts := factory.Options{}
	factory.SetListerWatcher(&opts, configMapType, src)
	f := factory.New(nil, opts)
	inf := factory.InformerFor(f, configMapType)
	reg, err := inf.AddHandler(informer.HandlerFuncs[*corev1.ConfigMap]{}, informer.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := crinformers.NewRunnable(f, crinformers.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a safety net, not a speed check
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- r.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-ran; err != nil {
			t.Error(err)
		}
	}()
	if !r.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("informers did not sync")
	}

	if err := r.GetCache().RemoveInformer(ctx, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reg.Stopped():
	default:
		t.Fatal("the removed informer's handler was not stopped when RemoveInformer returned")
	}
	if n := len(f.Informers()); n != 0 {
		t.Fatalf("factory still lists %d informers", n)
	}
	if err := r.GetCache().RemoveInformer(ctx, &corev1.ConfigMap{}); err != nil {
		t.Fatalf("RemoveInformer of a type with no informer = %v, want nil (as controller-runtime)", err)
	}
	fresh := factory.InformerFor(f, configMapType)
	if fresh == inf {
		t.Fatal("InformerFor returned the removed informer")
	}
	if !r.GetCache().WaitForCacheSync(ctx) || fresh.Indexer().Len() != 1 {
		t.Fatalf("fresh informer: synced %v, %d objects; want 1", fresh.HasSynced(), fresh.Indexer().Len())
	}
}

// noRemoveFactory is a Factory that cannot remove informers.
type noRemoveFactory struct{ crinformers.Factory }

func TestRunnableCacheRemoveInformerUnsupported(t *testing.T) {
	r := crinformers.NewRunnable(noRemoveFactory{factory.New(nil, factory.Options{})}, crinformers.Options{})
	if err := r.GetCache().RemoveInformer(context.Background(), &corev1.ConfigMap{}); err == nil {
		t.Fatal("RemoveInformer on a factory without RemoveInformerOf: nil error")
	}
}
