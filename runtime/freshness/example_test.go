package freshness_test

import (
	"context"
	"os"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/freshness"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/shard"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// A sharded controller that reads its own writes: shard.Shard.Reconciler
// outermost (a key this replica does not own is skipped before anything
// else), the Tracker's Reconciler inside it (an owned key whose last write
// the cache has not applied waits for it, requeued through q.Add), then the
// reconcile, which records each write's answer with Wrote.
func ExampleTracker_Reconciler_shard() {
	run := func(ctx context.Context, cfg *rest.Config, pods reflector.ListerWatcher[*corev1.Pod], update func(context.Context, *corev1.Pod) (*corev1.Pod, error)) error {
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
		podsRes := freshness.Resource{Name: "pods", Cache: inf.Indexer()}
		q := workqueue.New(workqueue.Options[string]{Name: "pods"})
		tracker := &freshness.Tracker[string]{}
		enqueue := func(p *corev1.Pod) { q.Add(store.Key(p)) }
		_, err = inf.AddHandler(shard.Filter(s, informer.HandlerFuncs[*corev1.Pod]{
			AddFunc:    func(p *corev1.Pod, _ bool) { enqueue(p) },
			UpdateFunc: func(_, p *corev1.Pod) { enqueue(p) },
			DeleteFunc: func(p *corev1.Pod, _ bool) { enqueue(p); tracker.Forget(store.Key(p)) },
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
		return q.Run(ctx, 4, s.Reconciler(tracker.Reconciler(q.Add, func(ctx context.Context, key string) error {
			pod, ok := inf.Indexer().Get(key) // never older than this controller's last write of key
			if !ok {
				return nil
			}
			pod = pod.DeepCopy()
			pod.Labels = map[string]string{"seen": "yes"}
			written, err := update(ctx, pod)
			if err != nil {
				return err
			}
			return tracker.Wrote(key, podsRes, written)
		})))
	}
	_ = run
}
