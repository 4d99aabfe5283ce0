package fleet_test

import (
	"context"
	"fmt"
	"slices"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// A controller over two clusters. widgetFactory stands for a generated
// *informers.SharedInformerFactory (pass informers.NewSharedInformerFactory
// as NewFactory), and over(src) for an Endpoint with the cluster's
// rest.Config; a Provider (KubeconfigDir, KubeconfigSecrets) would call
// Engage and Disengage instead of the program.
func Example() {
	q := workqueue.New(workqueue.Options[fleet.Key]{Name: "widgets"})
	defer q.ShutDown()
	fl := fleet.New(fleet.Options[*widgetFactory]{NewFactory: newWidgetFactory})
	fleet.Watch(fl, (*widgetFactory).Widgets, fleet.Enqueue[*lwt.Widget](q), informer.HandlerOptions{})
	_ = fl.Engage("east", over(newSource(widget("ns", "a", "n1"))))
	_ = fl.Engage("west", over(newSource(widget("ns", "a", "n2"), widget("ns", "b", "n1"))))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fl.Run(ctx) }()
	if err := fl.WaitForCacheSync(ctx); err != nil {
		fmt.Println(err)
	}

	// A worker: the key names the cluster, the cluster's lister the object.
	var seen []string
	for range 3 {
		key, _ := q.Get()
		if c, ok := fl.Cluster(key.Cluster); ok {
			w, ok := c.Factory().Widgets().Indexer().Get(key.Namespace + "/" + key.Name)
			if ok {
				seen = append(seen, key.String()+" on "+w.Spec.NodeName)
			}
		}
		q.Done(key)
	}
	slices.Sort(seen)
	fmt.Println(seen)

	// A typed read across the fleet, each object with its cluster.
	onN1, _ := fleet.Collect(fl, func(c *fleet.Cluster[*widgetFactory]) ([]*lwt.Widget, error) {
		return c.Factory().Widgets().Indexer().ByIndex(nodeIndex, "n1")
	})
	for _, it := range onN1 {
		fmt.Println(it.Cluster, it.Object.Name)
	}

	cancel()
	<-done
	// Output:
	// [east:ns/a on n1 west:ns/a on n2 west:ns/b on n1]
	// east a
	// west b
}
