package shard_test

import (
	"context"
	"os"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/listwatch"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/shard"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// Server-side sharded watches: with Options.ByUID, objects are assigned by
// their uid's shard hash, and an informer whose ListOptions carry the
// shard's selector (Tweak) and whose Reflector relists when it changes
// (RelistTrigger) caches only this replica's objects, when the API server
// honours shardSelector (ServerSelects). With a generated factory, set
// factory.Options.Tweak = s.Tweak and factory.Options.Reflector.Relist =
// s.RelistTrigger() instead.
func ExampleShard_Tweak() {
	run := func(ctx context.Context, cfg *rest.Config, core rest.Interface) error {
		leases, source, err := shard.NewLeases(cfg, nil, "kube-system", "pod-labeler")
		if err != nil {
			return err
		}
		s, err := shard.New(shard.Options{
			Group:    "pod-labeler",
			Identity: os.Getenv("POD_NAME"),
			Leases:   leases,
			Source:   source,
			ByUID:    true,
		})
		if err != nil {
			return err
		}
		var ropts reflector.Options
		var tweak func(*metav1.ListOptions)
		if ok, err := shard.ServerSelects(ctx, core, "", "pods"); err == nil && ok {
			tweak, ropts.Relist = s.Tweak, s.RelistTrigger()
		} else {
			// Not honoured (gate off, older server) or unknown: watch
			// everything; the Filter still forwards only owned Pods.
			klog.FromContext(ctx).Info("shardSelector not honoured: caching every Pod", "err", err)
		}
		pods := listwatch.New(core, listwatch.Options[*corev1.Pod, *corev1.PodList]{
			Resource: "pods",
			Tweak:    tweak,
			NewList:  func() *corev1.PodList { return new(corev1.PodList) },
			Items:    func(l *corev1.PodList) []*corev1.Pod { return listwatch.Pointers(l.Items) },
		})
		inf := informer.New(pods, informer.Options[*corev1.Pod]{Reflector: ropts})
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
		defer wg.Wait()
		wg.Go(func() { _ = s.Run(ctx) })
		// Start the informer once the shard has its first assignment, so
		// its first LIST is of its shard already.
		if err := informer.WaitForCacheSync(ctx, s); err != nil {
			return err
		}
		wg.Go(func() { _ = inf.Run(ctx) })
		if err := informer.WaitForCacheSync(ctx, inf); err != nil {
			return err
		}
		return q.Run(ctx, 4, s.Reconciler(func(ctx context.Context, key string) error {
			return nil
		}))
	}
	_ = run
}
