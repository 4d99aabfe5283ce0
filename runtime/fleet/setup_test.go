package fleet_test

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

const nodeIndex = "node"

// WidgetType is what informer-gen would emit for Widget.
var WidgetType = factory.Type[*lwt.Widget]{
	Resource:    lwt.GVR,
	Namespaced:  true,
	AddToScheme: lwt.AddToScheme,
	Indexers: func() store.Indexers[*lwt.Widget] {
		return store.Indexers[*lwt.Widget]{nodeIndex: func(w *lwt.Widget) ([]string, error) {
			return store.Values(w.Spec.NodeName), nil
		}}
	},
}

// widgetFactory has the shape of a generated SharedInformerFactory: it
// embeds *factory.Factory and adds typed accessors. The fleet uses it as is.
type widgetFactory struct{ *factory.Factory }

func newWidgetFactory(cfg *rest.Config, opts factory.Options) *widgetFactory {
	return &widgetFactory{factory.New(cfg, opts)}
}

func (f *widgetFactory) Widgets() *informer.Informer[*lwt.Widget] {
	return factory.InformerFor(f.Factory, WidgetType)
}

func widgets(f *widgetFactory) *informer.Informer[*lwt.Widget] { return f.Widgets() }

func widget(ns, name, node string) *lwt.Widget {
	w := &lwt.Widget{Spec: lwt.WidgetSpec{NodeName: node}}
	w.Namespace, w.Name = ns, name
	return w
}

func newSource(objs ...*lwt.Widget) *runtimetest.Source[*lwt.Widget] {
	return runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()}, objs...)
}

// over is the Endpoint of a cluster whose Widgets come from lw.
func over(lw reflector.ListerWatcher[*lwt.Widget]) fleet.Endpoint {
	return fleet.Endpoint{Options: func(o *factory.Options) {
		o.Types = append(o.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: lw})
	}}
}

// forbidden answers every LIST and WATCH with a 403, as a cluster whose
// credentials lack RBAC.
type forbidden struct{}

func (forbidden) List(context.Context, metav1.ListOptions) (*reflector.ListResult[*lwt.Widget], error) {
	return nil, apierrors.NewForbidden(lwt.GVR.GroupResource(), "", nil)
}

func (forbidden) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, apierrors.NewForbidden(lwt.GVR.GroupResource(), "", nil)
}

// gated holds every LIST and WATCH until open is called (or the caller's
// ctx ends), then serves them from src: a server that does not answer
// (unreachable, a hung TCP connection) until it does.
type gated struct {
	src  *runtimetest.Source[*lwt.Widget]
	once sync.Once
	gate chan struct{}
}

func newGated(src *runtimetest.Source[*lwt.Widget]) *gated {
	return &gated{src: src, gate: make(chan struct{})}
}

func (g *gated) open() { g.once.Do(func() { close(g.gate) }) }

func (g *gated) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[*lwt.Widget], error) {
	select {
	case <-g.gate:
		return g.src.List(ctx, opts)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (g *gated) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	select {
	case <-g.gate:
		return g.src.Watch(ctx, opts)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
