package controllerruntime_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// TestRunnableCacheRemoveInformer: the Runnable's cache RemoveInformer stops
// and removes the factory's informer of the object's type (its handlers are
// stopped when it returns), and a later InformerFor starts a fresh one.
func TestRunnableCacheRemoveInformer(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: configMapType.Resource.GroupResource()}, cm)
	opts := factory.Options{}
	opts.Types = append(opts.Types, factory.TypeOptions[*corev1.ConfigMap]{Type: configMapType, ListerWatcher: src})
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

var secretType = factory.Type[*corev1.Secret]{Resource: corev1.SchemeGroupVersion.WithResource("secrets"), Namespaced: true, AddToScheme: corev1.AddToScheme}

// TestSharedInformersRemoveOne: controller-runtime's cache runs each
// informer with a context of its own and cancels it on
// Cache.RemoveInformer. Cancelling one shared informer's context stops and
// removes that informer only; the other shared type keeps running and
// receiving events, and nothing else was started by the first Run.
func TestSharedInformersRemoveOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cms := runtimetest.NewSource(runtimetest.SourceOptions{Resource: configMapType.Resource.GroupResource()},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "1"}})
		secrets := runtimetest.NewSource(runtimetest.SourceOptions{Resource: secretType.Resource.GroupResource()},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", ResourceVersion: "1"}})
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*corev1.ConfigMap]{Type: configMapType, ListerWatcher: cms})
		opts.Types = append(opts.Types, factory.TypeOptions[*corev1.Secret]{Type: secretType, ListerWatcher: secrets})
		f := factory.New(nil, opts)
		defer f.Shutdown()
		shared := crinformers.NewSharedInformers(f)
		crinformers.Share(shared, configMapType)
		crinformers.Share(shared, secretType)
		cmInf := shared.NewInformer(nil, &corev1.ConfigMap{}, 0, nil)
		secInf := shared.NewInformer(nil, &corev1.Secret{}, 0, nil)

		// As controller-runtime's cache: one context per informer.
		cmCtx, cmCancel := context.WithCancel(t.Context())
		secCtx, secCancel := context.WithCancel(t.Context())
		defer secCancel()
		var wg sync.WaitGroup
		wg.Go(func() { cmInf.RunWithContext(cmCtx) })
		synctest.Wait()
		if !cmInf.HasSynced() {
			t.Fatal("the ConfigMap informer did not sync")
		}
		if secInf.HasSynced() {
			t.Fatal("running the ConfigMap informer started the Secret informer too")
		}
		var secEvents atomic.Int32
		if _, err := secInf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { secEvents.Add(1) },
			UpdateFunc: func(any, any) { secEvents.Add(1) },
		}); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { secInf.RunWithContext(secCtx) })
		synctest.Wait()
		if !secInf.HasSynced() {
			t.Fatal("the Secret informer did not sync")
		}

		cmCancel() // controller-runtime's RemoveInformer of ConfigMaps
		synctest.Wait()
		if !cmInf.IsStopped() {
			t.Fatal("the ConfigMap view does not report stopped")
		}
		if n := len(f.Informers()); n != 1 {
			t.Fatalf("factory lists %d informers after the ConfigMap informer was removed, want 1", n)
		}
		before := secEvents.Load()
		if _, err := secrets.Update(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", ResourceVersion: "2"}}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if secEvents.Load() == before {
			t.Fatal("the Secret informer got no event after the ConfigMap informer was removed: it was stopped too")
		}
		secCancel()
		wg.Wait()
	})
}
