package factory_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// The calls generated code makes, by hand: a Type per kind, one shared
// informer per type, Start, WaitForCacheSync, read through a lister,
// Shutdown. Here the source is a fake; with a *rest.Config instead of nil
// (and no TypeOptions.ListerWatcher) the same code talks to an API server.
func Example() {
	a, b := widget("default", "a", "node-1", nil), widget("default", "b", "node-2", nil)
	a.ResourceVersion, b.ResourceVersion = "1", "1"

	f := factory.New(nil, factory.Options{Types: []factory.TypeOverride{
		factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: fakeLW{items: []*lwt.Widget{a, b}}},
	}})
	defer f.Shutdown() // stops the informers and waits for their goroutines

	inf := factory.InformerFor(f, WidgetType)
	ctx := context.Background()
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	lister := store.NewLister(inf.Indexer(), WidgetType.Resource.GroupResource())
	all, _ := lister.Namespace("default").List(labels.Everything())
	onNode1, _ := lister.ByIndex(nodeIndex, "node-1")
	fmt.Println(len(all), "widgets;", onNode1[0].Name, "is on node-1")
	// Output: 2 widgets; a is on node-1
}
