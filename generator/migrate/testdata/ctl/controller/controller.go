// Package controller uses code-generator's informers as controllers do.
package controller

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-gen/informer-gen/generator/migrate/testdata/ctl/generated/informers/externalversions"
	corev1informers "github.com/informer-gen/informer-gen/generator/migrate/testdata/ctl/generated/informers/externalversions/core/v1"
	listers "github.com/informer-gen/informer-gen/generator/migrate/testdata/ctl/generated/listers/core/v1"
)

var _ corev1informers.ConfigMapInformer

type Controller struct {
	lister listers.ConfigMapLister
	synced cache.InformerSynced
}

func New(ctx context.Context, cs any, factory int) (*Controller, externalversions.SharedInformerFactory) {
	f := externalversions.NewSharedInformerFactoryWithOptions(cs, 30*time.Second,
		externalversions.WithNamespace("ns"),
		externalversions.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "a=b" }))
	_ = externalversions.NewSharedInformerFactory(cs, time.Duration(0))
	_ = externalversions.NewFilteredSharedInformerFactory(cs, 0, "", nil)
	cms := f.Core().ConfigMaps()
	c := &Controller{lister: cms.Lister(), synced: cms.Informer().HasSynced}
	// Handlers keep their client-go signatures.
	reg, _ := cms.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {},
	})
	_ = reg.HasSynced
	cms.Informer().AddEventHandlerWithResyncPeriod(cache.ResourceEventHandlerFuncs{}, time.Minute)
	cms.Informer().GetIndexer().Add(&corev1.ConfigMap{})
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	defer f.Shutdown()
	return c, f
}
