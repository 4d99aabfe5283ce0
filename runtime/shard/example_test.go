package shard_test

import (
	"context"
	"os"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/shard"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// A controller split over its replicas: the Shard decides which keys are
// this replica's, the Filter keeps the others' events out of the queue (and
// replays keys gained when a replica leaves), and Reconciler skips keys
// that moved away while queued, and holds a handover until the reconcile of
// a key being handed over has ended.
func Example() {
	run := func(ctx context.Context, cfg *rest.Config, pods reflector.ListerWatcher[*corev1.Pod]) error {
		leases, source, err := shard.NewLeases(cfg, nil, "kube-system", "pod-labeler")
		if err != nil {
			return err
		}
		s, err := shard.New(shard.Options{
			Group:    "pod-labeler",
			Identity: os.Getenv("POD_NAME"),
			Leases:   leases,
			Source:   source,
		})
		if err != nil {
			return err
		}
		inf := informer.New(pods, informer.Options[*corev1.Pod]{})
		q := workqueue.New(workqueue.Options[string]{Name: "pods"})
		enqueue := func(p *corev1.Pod) { q.Add(store.Key(p)) }
		_, err = inf.AddHandler(shard.Filter(s, informer.HandlerFuncs[*corev1.Pod]{
			AddFunc:    func(p *corev1.Pod, _ bool) { enqueue(p) },
			UpdateFunc: func(_, p *corev1.Pod) { enqueue(p) },
			DeleteFunc: func(p *corev1.Pod, _ bool) { enqueue(p) },
		}), informer.HandlerOptions{})
		if err != nil {
			return err
		}

		var wg sync.WaitGroup
		wg.Go(func() { _ = s.Run(ctx) })
		wg.Go(func() { _ = inf.Run(ctx) })
		defer wg.Wait()
		if err := informer.WaitForCacheSync(ctx, inf, s); err != nil {
			return err
		}
		return q.Run(ctx, 4, s.Reconciler(func(ctx context.Context, key string) error {
			// Read key from inf.Indexer() and act; ctx ends if this
			// replica loses its Lease.
			return nil
		}))
	}
	_ = run
}
