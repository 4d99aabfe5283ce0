package controllerruntime_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"

	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
)

// A set-up mistake (a type with no ListerWatcher and no rest.Config) ends
// the Runnable's wait at once with factory.ErrSetup, with or without
// SyncTimeout: no retries, no "not synced yet" line every SyncLogPeriod.
func TestRunnableSetupMistakeFailsAtOnce(t *testing.T) {
	configMaps := factory.Type[*corev1.ConfigMap]{Resource: corev1.SchemeGroupVersion.WithResource("configmaps"), Namespaced: true, AddToScheme: scheme.AddToScheme}
	for _, timeout := range []time.Duration{0, time.Hour} {
		synctest.Test(t, func(t *testing.T) {
			f := factory.New(nil, factory.Options{}) // no rest.Config, no ListerWatcher
			factory.InformerFor(f, configMaps)
			r := crinformers.NewRunnable(f, crinformers.Options{SyncTimeout: timeout, SyncLogPeriod: time.Second})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			start := time.Now()
			go func() { done <- r.Start(ctx) }()
			if ok := r.GetCache().WaitForCacheSync(ctx); ok {
				t.Fatal("the manager's cache wait succeeded with an informer that has no source")
			}
			if waited := time.Since(start); waited != 0 {
				t.Errorf("SyncTimeout %v: the cache wait took %v of (fake) time, want at once", timeout, waited)
			}
			if timeout > 0 {
				if err := <-done; !errors.Is(err, factory.ErrSetup) {
					t.Errorf("SyncTimeout %v: Start = %v, want factory.ErrSetup", timeout, err)
				}
			}
			cancel()
			if timeout == 0 {
				if err := <-done; err != nil {
					t.Errorf("Start = %v after ctx ended, want nil", err)
				}
			}
		})
	}
}
