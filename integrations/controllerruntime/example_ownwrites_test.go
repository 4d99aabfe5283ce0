package controllerruntime_test

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/freshness"
	"github.com/informer-gen/informer-gen/runtime/informer"
)

// A controller that never reconciles from a cache older than its own last
// write: OwnWrites is watched (it requeues a deferred request when the cache
// catches up) and wraps the reconciler; each write is recorded with
// Tracker().Wrote.
func ExampleOwnWrites() {
	setup := func(mgr manager.Manager, configMaps *informer.Informer[*corev1.ConfigMap]) error {
		res := freshness.Resource{Name: "configmaps", Cache: configMaps.Indexer()}
		ow := crinformers.NewOwnWrites(&freshness.Tracker[reconcile.Request]{})
		r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			cm, ok := configMaps.Indexer().Get(req.String())
			if !ok {
				ow.Tracker().Forget(req)
				return reconcile.Result{}, nil
			}
			cm = cm.DeepCopy()
			cm.Data = map[string]string{"seen": "yes"}
			if err := mgr.GetClient().Update(ctx, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			// Update filled cm in from the server's answer: its resourceVersion
			// is what the next reconcile of req waits for.
			return reconcile.Result{}, ow.Tracker().Wrote(req, res, cm)
		})
		return builder.ControllerManagedBy(mgr).
			Named("configmap-marker").
			WatchesRawSource(crinformers.Kind(configMaps, &handler.TypedEnqueueRequestForObject[*corev1.ConfigMap]{})).
			WatchesRawSource(ow).
			Complete(ow.Reconciler(r))
	}
	_ = setup
}
