package factory

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/core"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// Generic is the untyped view of one shared informer that ForResource
// returns, for code that works on any resource (garbage collectors, quota,
// generic controllers). Typed code should use the generated accessors.
type Generic interface {
	// Resource is the group, version and resource of the informer.
	Resource() schema.GroupVersionResource
	Informer() GenericInformer
	Lister() GenericLister
}

// GenericInformer is the untyped informer of a Generic. Safe for concurrent
// use; see informer.Informer for the contract of each method.
type GenericInformer interface {
	// Name is the informer's name (its resource, unless Options.Types
	// renamed it), as in logs.
	Name() string
	// Len is the number of cached objects.
	Len() int
	// Handlers are the registrations of its handlers (informer.Handlers).
	Handlers() []*informer.Registration
	HasSynced() bool
	Synced() <-chan struct{}
	LastError() error
	LastSyncResourceVersion() string
	// AddHandler registers h, which receives the typed objects as
	// runtime.Object (always the informer's T).
	AddHandler(h informer.Handler[runtime.Object], opts informer.HandlerOptions) (*informer.Registration, error)
	RemoveHandler(r *informer.Registration) error
}

// GenericLister reads the informer's cache as runtime.Object. Returned objects
// are shared with the cache: do not mutate them.
type GenericLister interface {
	// List returns every cached object matching sel.
	List(sel labels.Selector) ([]runtime.Object, error)
	// Get returns the object with the given cache key: "name" for a
	// cluster-scoped resource, "namespace/name" for a namespaced one (as
	// client-go's GenericLister). A missing object is an error for which
	// apierrors.IsNotFound is true.
	Get(key string) (runtime.Object, error)
	// ByNamespace scopes reads to one namespace.
	ByNamespace(namespace string) GenericNamespaceLister
}

// GenericNamespaceLister reads the objects of one namespace.
type GenericNamespaceLister interface {
	List(sel labels.Selector) ([]runtime.Object, error)
	Get(name string) (runtime.Object, error)
}

// generic is the Generic of one shared informer; it is not generic in the Go
// sense, so it is compiled once, here.
type generic struct {
	gvr schema.GroupVersionResource
	inf *core.Shared
}

func newGeneric(gvr schema.GroupVersionResource, inf *core.Shared) Generic {
	return &generic{gvr: gvr, inf: inf}
}

func (g *generic) Resource() schema.GroupVersionResource { return g.gvr }
func (g *generic) Informer() GenericInformer             { return genericInformer{g} }
func (g *generic) Lister() GenericLister                 { return genericLister{g} }

type genericInformer struct{ g *generic }

func (i genericInformer) Name() string { return i.g.inf.Name() }
func (i genericInformer) Len() int     { return i.g.inf.Cache().Len() }
func (i genericInformer) Handlers() []*informer.Registration {
	rs := i.g.inf.Handlers()
	out := make([]*informer.Registration, len(rs))
	for n, r := range rs {
		out[n] = (*informer.Registration)(r)
	}
	return out
}
func (i genericInformer) HasSynced() bool         { return i.g.inf.HasSynced() }
func (i genericInformer) Synced() <-chan struct{} { return i.g.inf.Synced() }
func (i genericInformer) LastError() error        { return i.g.inf.LastError() }
func (i genericInformer) LastSyncResourceVersion() string {
	return i.g.inf.LastSyncResourceVersion()
}
func (i genericInformer) RemoveHandler(r *informer.Registration) error {
	return i.g.inf.RemoveHandler((*core.Registration)(r))
}
func (i genericInformer) AddHandler(h informer.Handler[runtime.Object], opts informer.HandlerOptions) (*informer.Registration, error) {
	var u core.Handler
	if h != nil {
		u = untypedHandler{h}
	}
	r, err := i.g.inf.AddHandler(u, core.HandlerOptions(opts))
	return (*informer.Registration)(r), err
}

type untypedHandler struct {
	h informer.Handler[runtime.Object]
}

func (u untypedHandler) OnAdd(obj cache.Obj, initial bool)         { u.h.OnAdd(obj, initial) }
func (u untypedHandler) OnUpdate(oldObj, newObj cache.Obj)         { u.h.OnUpdate(oldObj, newObj) }
func (u untypedHandler) OnDelete(obj cache.Obj, finalUnknown bool) { u.h.OnDelete(obj, finalUnknown) }

// genericLister is the all-namespaces GenericLister.
type genericLister struct{ g *generic }

func (l genericLister) List(sel labels.Selector) ([]runtime.Object, error) {
	if sel == nil {
		sel = labels.Everything()
	}
	return objects(l.g.inf.Cache().ListSelector("", sel)), nil
}

// Get takes a cache key, as client-go's GenericLister does: "name" for
// cluster-scoped objects, "namespace/name" for namespaced ones.
func (l genericLister) Get(key string) (runtime.Object, error) {
	obj, ok := l.g.inf.Cache().Get(key)
	if !ok {
		_, name, err := store.SplitKey(key)
		if err != nil {
			name = key
		}
		return nil, apierrors.NewNotFound(l.g.gvr.GroupResource(), name)
	}
	return obj, nil
}

func (l genericLister) ByNamespace(namespace string) GenericNamespaceLister {
	return genericNamespaceLister{l.g, namespace}
}

type genericNamespaceLister struct {
	g         *generic
	namespace string
}

func (l genericNamespaceLister) List(sel labels.Selector) ([]runtime.Object, error) {
	if sel == nil {
		sel = labels.Everything()
	}
	return objects(l.g.inf.Cache().ListSelector(l.namespace, sel)), nil
}

func (l genericNamespaceLister) Get(name string) (runtime.Object, error) {
	obj, ok := l.g.inf.Cache().GetNamespaced(l.namespace, name)
	if !ok {
		return nil, apierrors.NewNotFound(l.g.gvr.GroupResource(), name)
	}
	return obj, nil
}

func objects(items []cache.Obj) []runtime.Object {
	out := make([]runtime.Object, len(items))
	for i, o := range items {
		out[i] = o
	}
	return out
}
