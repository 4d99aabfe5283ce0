// Package refused uses code-generator's informers in ways the migration
// cannot rewrite.
package refused

import (
	"context"

	"k8s.io/client-go/tools/cache"

	informers "github.com/informer-gen/informer-gen/generator/migrate/testdata/ctl/generated/informers/externalversions"
	listers "github.com/informer-gen/informer-gen/generator/migrate/testdata/ctl/generated/listers/core/v1"
)

func Use(ctx context.Context, cs any, stop <-chan struct{}) cache.SharedIndexInformer {
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTransform(nil))
	f.Start(stop)
	for range f.WaitForCacheSync(ctx.Done()) {
	}
	inf := f.Core().ConfigMaps().Informer()
	_ = f.Core().ConfigMaps().Informer().GetIndexer().List()
	_ = listers.NewConfigMapLister(nil)
	return inf
}
